"""``harness run``: one turn on a harness, rendered in the terminal or written as NDJSON.

::

    harness run "fix the failing test" --model anthropic:claude-sonnet-4-5
    harness run "list the TODOs" --harness builtin --model openai:qwen2.5-coder \\
        --base-url http://localhost:11434/v1 --cwd ~/src/app --permission-mode allow-reads
    harness run "explain main.py" --json > parts.ndjson
    harness run "run the tests" --sandbox bwrap      # commands inside bubblewrap, no network

Rendering (rich): streaming text, reasoning, each tool call with its input (built-in or
host) and its cut result, approval prompts (approve, deny, always for this tool), file
changes, compaction, errors, and at the end the finish reason and token usage. ``--json``
writes every stream part as one JSON object per line (AI SDK part shapes, camelCase keys)
instead; prompts and notes then go to stderr.

Approvals (``--approve``): ``ask`` (default) prompts on the terminal; without one it
denies the call, with a reason the model sees, instead of waiting forever. ``allow``
approves and ``deny`` denies every request.

Exit status: 0 the turn finished (``stop``); 1 it failed (``error``); 2 usage or
configuration error (no model configured, bad option); 3 it stopped at a limit (``length``,
``content-filter``, ``other``); 4 it is still waiting (a client-side tool result nobody can
give here); 130 interrupted (Ctrl-C aborts the turn cleanly first).

The outcome of the last run is also left in ``click`` context meta under
``"harness.run"`` (a mapping: ``finish_reason``, ``exit_code``, ``tool_calls``,
``builtin_calls``, ``host_calls``, ``approvals``, ``denials``, ``file_changes``,
``aborted``, ``succeeded_tools`` (successful results by tool name), ``usage``,
``workspace``) for commands that invoke ``run`` themselves, such as ``harness demo``.

Errors are one line on stderr, ``harness: error: <message>``; a setting an adapter
rejects (``-o max_steps=abc``) is a configuration error (exit 2), never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import click
from rich.console import Console
from rich.text import Text

from harness_core.cli.sandbox_choice import make_sandbox
from harness_core.errors import HarnessConfigurationError, HarnessError
from harness_core.parts.models import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
)

if TYPE_CHECKING:
    from harness_core.sandbox import Sandbox

__all__ = ["COMMANDS", "EXIT_CODES", "run_command"]

EXIT_CODES: Final[Mapping[str, int]] = {
    "stop": 0,
    "tool-calls": 0,
    "error": 1,
    "length": 3,
    "content-filter": 3,
    "other": 3,
    "unknown": 1,
    "awaiting-approval": 4,
    "awaiting-tool-result": 4,
    "aborted": 130,
}
"""Exit status by the turn's final finish reason."""

_RESULT_LINES: Final = 8
_RESULT_CHARS: Final = 1200
_INPUT_CHARS: Final = 240
_NO_TTY_REASON: Final = (
    "harness run --approve ask has no terminal to ask on; rerun with --approve allow to allow this call"
)


def _stdin_is_tty() -> bool:
    return sys.stdin.isatty()


def _read_line(prompt: str) -> str:
    # The prompt goes to stderr so that --json output on stdout stays pure NDJSON.
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError("stdin closed")
    return line.rstrip("\n")


async def _ask_line(prompt: str) -> str:
    """Read one line in a daemon thread, so Ctrl-C never leaves the process waiting on it."""
    box: dict[str, Any] = {}
    done = anyio.Event()
    token = anyio.lowlevel.current_token()

    def worker() -> None:
        try:
            box["line"] = _read_line(prompt)
        except BaseException as exc:  # EOF, closed stdin...
            box["error"] = exc
        with contextlib.suppress(RuntimeError):  # the event loop may be gone
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=worker, name="harness-run-prompt", daemon=True).start()
    try:
        await done.wait()
    except anyio.get_cancelled_exc_class():
        # Ctrl-C at the prompt: the reader thread stays blocked on stdin, a daemon thread
        # that never keeps the process alive; end the prompt's line.
        sys.stderr.write("\n")
        sys.stderr.flush()
        raise
    if "error" in box:
        return ""
    return str(box["line"])


def _short(value: Any, limit: int = _INPUT_CHARS) -> str:
    if isinstance(value, Mapping):
        text = " ".join(f"{key}={json.dumps(item, ensure_ascii=False)}" for key, item in value.items())
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut_block(text: str) -> str:
    """The first lines of a result and its last one (where exit codes and summaries are)."""
    lines = text.splitlines() or [""]
    if len(lines) <= _RESULT_LINES:
        shown, hidden, last = lines, 0, None
    else:
        shown, hidden, last = lines[: _RESULT_LINES - 1], len(lines) - _RESULT_LINES, lines[-1]
    out = "\n".join(shown)
    if len(out) > _RESULT_CHARS:
        out = out[:_RESULT_CHARS] + "…"
    if last is not None:
        out += f"\n… {hidden} more line(s)\n{last[:_RESULT_CHARS]}"
    return out


def _indent(text: str) -> str:
    lines = text.splitlines() or [""]
    return "\n".join(("  ⎿ " if i == 0 else "    ") + line for i, line in enumerate(lines))


class Stats:
    """What a run did, for the closing summary and for commands invoking ``run``."""

    def __init__(self) -> None:
        self.tool_calls = 0
        self.builtin_calls = 0
        self.host_calls = 0
        self.approvals = 0
        self.denials = 0
        self.file_changes: list[dict[str, str]] = []
        self.compactions = 0
        self.errors: list[str] = []
        self.usage = Usage()
        self.finish_reason = "unknown"
        self.aborted = False
        self.succeeded: dict[str, int] = {}

    def observe(self, part: Part) -> None:
        if isinstance(part, ToolCallPart) and not part.invalid:
            if part.tool_name == FILE_CHANGE_TOOL:
                changes = part.input.get("changes", []) if isinstance(part.input, Mapping) else []
                self.file_changes.extend(c for c in changes if isinstance(c, dict))
            elif part.tool_name == COMPACTION_TOOL:
                self.compactions += 1
            else:
                self.tool_calls += 1
                if part.provider_executed:
                    self.builtin_calls += 1
                else:
                    self.host_calls += 1
        elif isinstance(part, ToolResultPart):
            if not part.preliminary and part.tool_name not in (FILE_CHANGE_TOOL, COMPACTION_TOOL):
                self.succeeded[part.tool_name] = self.succeeded.get(part.tool_name, 0) + 1
        elif isinstance(part, AbortPart):
            self.aborted = True
        elif isinstance(part, ToolApprovalResponsePart):
            if part.approved:
                self.approvals += 1
            else:
                self.denials += 1
        elif isinstance(part, ErrorPart):
            self.errors.append(part.error)
        elif isinstance(part, FinishStepPart):
            self.usage = self.usage + part.usage
        elif isinstance(part, FinishPart):
            self.finish_reason = part.finish_reason

    def to_json(self) -> dict[str, Any]:
        return {
            "finish_reason": self.finish_reason,
            "tool_calls": self.tool_calls,
            "builtin_calls": self.builtin_calls,
            "host_calls": self.host_calls,
            "approvals": self.approvals,
            "denials": self.denials,
            "file_changes": list(self.file_changes),
            "compactions": self.compactions,
            "errors": list(self.errors),
            "aborted": self.aborted,
            "succeeded_tools": dict(self.succeeded),
            "usage": self.usage.model_dump(mode="json", by_alias=True, exclude_none=True),
        }


class Renderer:
    """Renders stream parts on a rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._inline = False

    def _line(self, renderable: Text | str) -> None:
        if self._inline:
            self.console.print()
            self._inline = False
        self.console.print(renderable)

    def part(self, part: Part) -> None:
        if isinstance(part, TextDeltaPart):
            self.console.print(Text(part.text), end="")
            self._inline = True
        elif isinstance(part, TextEndPart | ReasoningEndPart):
            if self._inline:
                self.console.print()
                self._inline = False
        elif isinstance(part, ReasoningStartPart):
            self._line(Text("thinking…", style="dim italic"))
        elif isinstance(part, ReasoningDeltaPart):
            self.console.print(Text(part.text, style="dim italic"), end="")
            self._inline = True
        elif isinstance(part, ToolCallPart):
            self._tool_call(part)
        elif isinstance(part, ToolResultPart):
            self._tool_result(part)
        elif isinstance(part, ToolErrorPart):
            self._line(Text(_indent(_cut_block(part.error)), style="red"))
        elif isinstance(part, ToolOutputDeniedPart):
            self._line(Text(_indent(f"denied: {part.reason or 'no reason given'}"), style="yellow"))
        elif isinstance(part, ToolApprovalResponsePart):
            verdict = "✓ approved" if part.approved else "✗ denied"
            self._line(Text(f"  {verdict}", style="green" if part.approved else "yellow"))
        elif isinstance(part, ErrorPart):
            kind = f" [{part.error_type}]" if part.error_type else ""
            self._line(Text(f"error{kind}: {part.error}", style="bold red"))
        elif isinstance(part, AbortPart):
            self._line(Text(f"aborted{': ' + part.reason if part.reason else ''}", style="yellow"))

    def _tool_call(self, part: ToolCallPart) -> None:
        if part.invalid:
            self._line(Text(f"⚠ unusable call to {part.tool_name}: {part.error}", style="yellow"))
            return
        if part.tool_name == FILE_CHANGE_TOOL:
            changes = part.input.get("changes", []) if isinstance(part.input, Mapping) else []
            marks = {"created": "+", "modified": "~", "deleted": "-"}
            listed = ", ".join(f"{marks.get(c.get('kind', ''), '?')}{c.get('path')}" for c in changes)
            self._line(Text(f"✎ files changed: {listed}", style="magenta"))
            return
        if part.tool_name == COMPACTION_TOOL:
            trigger = part.input.get("trigger", "") if isinstance(part.input, Mapping) else ""
            self._line(Text(f"⟳ compacting the conversation ({trigger})", style="magenta"))
            return
        origin = "built-in" if part.provider_executed else "host"
        line = Text("● ", style="cyan")
        line.append(part.tool_name, style="bold cyan")
        line.append(f" [{origin}] ", style="dim")
        line.append(_short(part.input))
        self._line(line)

    def _tool_result(self, part: ToolResultPart) -> None:
        if part.preliminary or part.tool_name == FILE_CHANGE_TOOL:
            return
        if part.tool_name == COMPACTION_TOOL:
            output = part.output if isinstance(part.output, Mapping) else {}
            if "skipped" in output:
                self._line(Text(_indent(f"nothing to compact: {output['skipped']}"), style="magenta"))
            else:
                self._line(Text(_indent(f"compacted to {output.get('messagesAfter')} messages"), style="magenta"))
            return
        output = part.output
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
        self._line(Text(_indent(_cut_block(text)), style="dim"))

    def approval_prompt(self, part: ToolApprovalRequestPart) -> None:
        call = part.tool_call
        origin = "built-in" if call.provider_executed else "host"
        line = Text("? ", style="bold yellow")
        line.append(f"approve {call.tool_name} [{origin}] ", style="bold")
        line.append(_short(call.input))
        self._line(line)

    def note(self, text: str, style: str = "yellow") -> None:
        self._line(Text(text, style=style))

    def summary(self, stats: Stats) -> None:
        usage = stats.usage
        tokens = f"{usage.input_tokens or 0} in / {usage.output_tokens or 0} out"
        style = "green" if stats.finish_reason == "stop" else "yellow" if EXIT_CODES.get(stats.finish_reason) != 1 else "red"
        line = Text(f"── finish: {stats.finish_reason}", style=f"bold {style}")
        line.append(f" · {stats.tool_calls} tool call(s) · tokens {tokens}", style="dim")
        if stats.file_changes:
            line.append(f" · {len(stats.file_changes)} file change(s)", style="dim")
        self._line(line)


class JsonWriter:
    """Writes every part as one JSON line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def part(self, part: Part) -> None:
        self.stream.write(json.dumps(part.to_json(), ensure_ascii=False) + "\n")
        self.stream.flush()


class Approver:
    """Answers approval requests per ``--approve``; remembers "always" per tool."""

    def __init__(self, mode: str, renderer: Renderer, *, interactive: bool) -> None:
        self.mode = mode
        self.renderer = renderer
        self.interactive = interactive
        self.always: set[str] = set()
        self.warned = False

    async def decide(self, part: ToolApprovalRequestPart) -> tuple[bool, str | None]:
        name = part.tool_call.tool_name
        if self.mode == "allow":
            return True, None
        if self.mode == "deny":
            return False, "denied by harness run --approve deny"
        if name in self.always:
            return True, None
        self.renderer.approval_prompt(part)
        if not self.interactive:
            if not self.warned:
                self.renderer.note("no terminal to ask for approval: denying (use --approve allow to allow)")
                self.warned = True
            return False, _NO_TTY_REASON
        while True:
            answer = (await _ask_line("  approve? [y]es / [n]o / [a]lways for this tool: ")).strip().lower()
            if answer in ("y", "yes"):
                return True, None
            if answer in ("a", "always"):
                self.always.add(name)
                return True, None
            if answer in ("n", "no", ""):
                return False, "denied by the user"


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        options[key.strip()] = value
    return options


_ABORT_REASON: Final = "interrupted (Ctrl-C)"
_STUCK_GRACE: Final = 0.5
"""Seconds a run may take to end after a second Ctrl-C before the process exits anyway."""


class _Interrupts:
    """Ctrl-C during a run: the first aborts the turn cleanly, the second ends the run at once.

    The first one aborts the streaming result (the stream then ends with an ``abort``
    part), or, when nothing streams (an approval prompt, a session starting), cancels
    :attr:`turn_scope`; the run then abandons the paused turn itself. The second one also
    cancels :attr:`run_scope`, which holds the clean-up, so nothing more is waited for;
    when the run still has not ended :data:`_STUCK_GRACE` seconds later (a runtime stuck
    in its own shielded abort), :attr:`exit_now` ends the process. SIGINT is caught
    through the event loop (``anyio.open_signal_receiver``), so no ``KeyboardInterrupt``
    is ever raised inside the loop.
    """

    def __init__(self) -> None:
        self.count = 0
        self.streaming: Any = None  # the StreamResult being read, if any
        self.exit_now: Callable[[], Awaitable[None]] | None = None
        self._scopes: tuple[anyio.CancelScope, anyio.CancelScope] | None = None

    def arm(self) -> tuple[anyio.CancelScope, anyio.CancelScope]:
        """Create the turn and run scopes (inside the event loop); returns them."""
        self._scopes = (anyio.CancelScope(), anyio.CancelScope())
        if self.count:
            self.interrupt_scopes()
        return self._scopes

    @property
    def turn_scope(self) -> anyio.CancelScope:
        assert self._scopes is not None, "arm() first"
        return self._scopes[0]

    @property
    def run_scope(self) -> anyio.CancelScope:
        assert self._scopes is not None, "arm() first"
        return self._scopes[1]

    @property
    def interrupted(self) -> bool:
        return self.count > 0

    def interrupt(self) -> None:
        self.count += 1
        if self.count == 1 and self.streaming is not None:
            self.streaming.abort(_ABORT_REASON)
            return
        self.interrupt_scopes()

    def interrupt_scopes(self) -> None:
        if self._scopes is None:
            return
        self._scopes[0].cancel()
        if self.count > 1:
            self._scopes[1].cancel()

    async def watch(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with anyio.create_task_group() as tasks:
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                task_status.started()
                async for _ in signals:
                    self.interrupt()
                    if self.count == 2:
                        tasks.start_soon(self._exit_if_stuck)

    async def _exit_if_stuck(self) -> None:
        # A run that honours the cancellation ends first, and cancels this task with it.
        await anyio.sleep(_STUCK_GRACE)
        if self.exit_now is not None:
            await self.exit_now()
        os._exit(130)  # pragma: no cover - exit_now exits itself


def _configuration_error(harness: str, exc: Exception) -> HarnessConfigurationError:
    """A factory or session start that rejected a setting with a plain ValueError/TypeError."""
    if isinstance(exc, HarnessConfigurationError):
        return exc
    return HarnessConfigurationError(f"harness {harness!r} rejected its settings: {exc}")


async def _run_turn(
    *,
    prompt: str,
    harness: str,
    harness_options: dict[str, Any],
    cwd: Path,
    sandbox_name: str,
    permission_mode: str,
    approve: str,
    as_json: bool,
    console: Console,
    stats: Stats,
    interrupts: _Interrupts,
) -> None:
    from harness_core.agent.harness_agent import HarnessAgent

    try:
        agent = HarnessAgent(harness=harness, harness_options=harness_options or None,
                             permission_mode=permission_mode)
    except (ValueError, TypeError) as exc:
        raise _configuration_error(harness, exc) from None
    renderer = Renderer(console)
    sink: Callable[[Part], None] = JsonWriter(sys.stdout).part if as_json else renderer.part
    sandbox = make_sandbox(sandbox_name, cwd)

    async def exit_now() -> None:
        """After a second Ctrl-C the runtime did not let go: kill the commands, say so, exit."""
        with contextlib.suppress(Exception):
            await sandbox.stop()
        with contextlib.suppress(Exception):
            if not stats.aborted:
                sink(AbortPart(reason=_ABORT_REASON))
            renderer.note("interrupted again (Ctrl-C): exiting without waiting for the runtime to stop")
            console.file.flush()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(130)

    interrupts.exit_now = exit_now
    failure: list[Exception] = []
    interrupts.arm()
    async with anyio.create_task_group() as group:
        if threading.current_thread() is threading.main_thread():
            await group.start(interrupts.watch)
        try:
            with interrupts.run_scope:
                await _drive(agent, prompt=prompt, harness=harness, sandbox=sandbox, approve=approve,
                             renderer=renderer, sink=sink, stats=stats, interrupts=interrupts)
        except Exception as exc:  # re-raised outside the task group, unwrapped
            failure.append(exc)
        group.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if interrupts.interrupted:
        stats.finish_reason = "aborted"
        if not stats.aborted:
            renderer.note(f"aborted: {_ABORT_REASON}")
            stats.aborted = True
    if not as_json:
        renderer.summary(stats)


async def _drive(
    agent: Any,
    *,
    prompt: str,
    harness: str,
    sandbox: Sandbox,
    approve: str,
    renderer: Renderer,
    sink: Callable[[Part], None],
    stats: Stats,
    interrupts: _Interrupts,
) -> None:
    """Start the session, stream the turn, answer approvals, and always clean up."""
    from harness_core.agent.answers import ApprovalResponse
    from harness_core.agent.turn_state import TurnState

    def emit(part: Part) -> None:
        stats.observe(part)
        sink(part)

    approver = Approver(approve, renderer, interactive=_stdin_is_tty())
    session: Any = None
    try:
        with interrupts.turn_scope:
            try:
                session = await agent.create_session(sandbox=sandbox)
            except HarnessError:
                raise
            except (ValueError, TypeError) as exc:
                raise _configuration_error(harness, exc) from None
            result = agent.stream(session=session, prompt=prompt)
            while True:
                requests: list[ToolApprovalRequestPart] = []
                interrupts.streaming = result
                try:
                    async for part in result.full_stream:
                        emit(part)
                        if isinstance(part, ToolApprovalRequestPart):
                            requests.append(part)
                finally:
                    interrupts.streaming = None
                if session.state is not TurnState.AWAITING_APPROVAL or interrupts.interrupted:
                    break
                responses = []
                for request in requests:
                    if request.approval_id not in session.pending_approvals:
                        continue
                    approved, reason = await approver.decide(request)
                    responses.append(ApprovalResponse(request.approval_id, approved, reason))
                result = agent.continue_stream(session=session, approval_responses=responses)
            if session.state is TurnState.AWAITING_TOOL_RESULT and not interrupts.interrupted:
                renderer.note("the turn waits for a client-side tool result, which harness run cannot supply")
                await session.abort_turn("no client-side tool results in harness run")
        if interrupts.interrupted and session is not None and session.state.paused:
            # Interrupted at a prompt: nothing streams, so abandon the paused turn here.
            await session.abort_turn(_ABORT_REASON)
            emit(AbortPart(reason=_ABORT_REASON))
    finally:
        # Cancelled only by a second Ctrl-C (run_scope): then nothing more is waited for,
        # but commands still running are killed all the same.
        try:
            if session is not None:
                await session.destroy()
        finally:
            with anyio.CancelScope(shield=True):
                await sandbox.stop()


@click.command("run")
@click.argument("prompt")
@click.option("--harness", "harness", default="builtin", show_default=True, help="The harness (adapter) to run.")
@click.option("--model", "model", default=None,
              help="provider:model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, openai:qwen2.5-coder "
                   "(default: HARNESS_MODEL, else the provider whose API key is set).")
@click.option("--base-url", "base_url", default=None, help="Model endpoint (OpenAI-compatible local servers, proxies).")
@click.option("--cwd", "cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Workspace directory (default: the current directory).")
@click.option("--sandbox", "sandbox_name", default="local", show_default=True,
              help="Where commands run: local (the host, paths confined) or a provider's sandbox, "
                   "e.g. bwrap (bubblewrap, no network) or bwrap-network.")
@click.option("--permission-mode", "permission_mode",
              type=click.Choice(["allow-all", "allow-edits", "allow-reads"]), default="allow-edits",
              show_default=True, help="What built-in tools may do without asking.")
@click.option("--approve", "approve", type=click.Choice(["ask", "allow", "deny"]), default="ask", show_default=True,
              help="How approval requests are answered; ask without a terminal denies.")
@click.option("--json", "as_json", is_flag=True, help="Write the stream parts as NDJSON on stdout.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="Extra adapter setting (repeatable; VALUE is JSON when it parses), e.g. -o max_steps=20.")
@click.pass_context
def run_command(ctx: click.Context, prompt: str, harness: str, model: str | None, base_url: str | None,
                cwd: Path | None, permission_mode: str, approve: str, as_json: bool, options: tuple[str, ...],
                sandbox_name: str = "local") -> None:
    """Run one turn of PROMPT on a harness and show what it does.

    Streams the answer, each tool call (built-in or host) with its result, approval
    prompts, file changes and compaction, then the finish reason and token usage.
    """
    harness_options = _parse_options(options)
    if model is not None:
        harness_options["model"] = model
    if base_url is not None:
        harness_options["base_url"] = base_url
    workspace = (cwd or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise click.BadParameter(f"{str(workspace)!r} is not a directory", param_hint="--cwd")
    console = Console(file=sys.stderr if as_json else sys.stdout, highlight=False, soft_wrap=True)
    stats = Stats()
    interrupts = _Interrupts()

    def outcome(code: int) -> None:
        ctx.meta["harness.run"] = {**stats.to_json(), "exit_code": code, "workspace": str(workspace)}

    try:
        anyio.run(lambda: _run_turn(
            prompt=prompt, harness=harness, harness_options=harness_options, cwd=workspace,
            sandbox_name=sandbox_name, permission_mode=permission_mode, approve=approve, as_json=as_json,
            console=console, stats=stats, interrupts=interrupts,
        ))
    except KeyboardInterrupt:  # before the loop caught SIGINT itself, or after
        interrupts.count += 1
        stats.finish_reason = "aborted"
        if not stats.aborted:
            stats.aborted = True
            Renderer(console).note(f"aborted: {_ABORT_REASON}")
    except HarnessConfigurationError as exc:
        _error(str(exc))
        outcome(2)
        ctx.exit(2)
    except HarnessError as exc:
        if getattr(exc, "error_type", None) == "configuration":
            _error(f"{exc}. Or try `harness demo` to see a harness work without a model.")
            outcome(2)
            ctx.exit(2)
        raise
    code = 130 if interrupts.interrupted else EXIT_CODES.get(stats.finish_reason, 1)
    outcome(code)
    ctx.exit(code)


def _error(message: str) -> None:
    """One line on stderr, in the style of every ``harness`` command (see ``cli.py``)."""
    click.echo(f"harness: error: {message}", err=True)


COMMANDS: dict[str, click.Command] = {"run": run_command}
"""The core subcommands this module contributes (``cli.py`` adds them to the group)."""
