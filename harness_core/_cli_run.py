"""``harness run``: one turn on a harness, rendered in the terminal or written as NDJSON.

::

    harness run "fix the failing test" --model anthropic:claude-sonnet-4-5
    harness run "list the TODOs" --harness builtin --model openai:qwen2.5-coder \\
        --base-url http://localhost:11434/v1 --cwd ~/src/app --permission-mode allow-reads
    harness run "explain main.py" --json > parts.ndjson

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
``approvals``, ``file_changes``, ``usage``, ``workspace``) for commands that invoke
``run`` themselves, such as ``harness demo``.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, TextIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import click
from rich.console import Console
from rich.text import Text

from .errors import HarnessConfigurationError, HarnessError
from .parts import (
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
    await done.wait()
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


async def _run_turn(
    *,
    prompt: str,
    harness: str,
    harness_options: dict[str, Any],
    cwd: Path,
    permission_mode: str,
    approve: str,
    as_json: bool,
    console: Console,
    stats: Stats,
    interrupted: list[bool],
) -> None:
    from .agent import HarnessAgent
    from .sandbox import LocalSandbox
    from .turn import ApprovalResponse, TurnState

    agent = HarnessAgent(harness=harness, harness_options=harness_options or None,
                         permission_mode=permission_mode)
    renderer = Renderer(console)
    sink: Callable[[Part], None] = JsonWriter(sys.stdout).part if as_json else renderer.part
    approver = Approver(approve, renderer, interactive=_stdin_is_tty())
    sandbox = LocalSandbox(cwd)
    session = await agent.create_session(sandbox=sandbox)
    try:
        async with anyio.create_task_group() as group:
            current: list[Any] = []

            async def watch_signals() -> None:
                with anyio.open_signal_receiver(signal.SIGINT) as signals:
                    async for _ in signals:
                        if interrupted[0]:
                            raise KeyboardInterrupt
                        interrupted[0] = True
                        if current:
                            current[-1].abort("interrupted (Ctrl-C)")
                        else:
                            group.cancel_scope.cancel()

            if threading.current_thread() is threading.main_thread():
                group.start_soon(watch_signals)
            result = agent.stream(session=session, prompt=prompt)
            while True:
                current.append(result)
                requests: list[ToolApprovalRequestPart] = []
                async for part in result.full_stream:
                    stats.observe(part)
                    sink(part)
                    if isinstance(part, ToolApprovalRequestPart):
                        requests.append(part)
                if session.state is not TurnState.AWAITING_APPROVAL or interrupted[0]:
                    break
                responses = []
                for request in requests:
                    if request.approval_id not in session.pending_approvals:
                        continue
                    approved, reason = await approver.decide(request)
                    responses.append(ApprovalResponse(request.approval_id, approved, reason))
                result = agent.continue_stream(session=session, approval_responses=responses)
            if session.state is TurnState.AWAITING_TOOL_RESULT:
                renderer.note("the turn waits for a client-side tool result, which harness run cannot supply")
                await session.abort_turn("no client-side tool results in harness run")
            group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await session.destroy()
            await sandbox.stop()
    if interrupted[0]:
        stats.finish_reason = "aborted"
    if not as_json:
        renderer.summary(stats)


@click.command("run")
@click.argument("prompt")
@click.option("--harness", "harness", default="builtin", show_default=True, help="The harness (adapter) to run.")
@click.option("--model", "model", default=None,
              help="provider:model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, openai:qwen2.5-coder "
                   "(default: HARNESS_MODEL, else the provider whose API key is set).")
@click.option("--base-url", "base_url", default=None, help="Model endpoint (OpenAI-compatible local servers, proxies).")
@click.option("--cwd", "cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Workspace directory (default: the current directory).")
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
                cwd: Path | None, permission_mode: str, approve: str, as_json: bool, options: tuple[str, ...]) -> None:
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
    interrupted = [False]
    try:
        anyio.run(lambda: _run_turn(
            prompt=prompt, harness=harness, harness_options=harness_options, cwd=workspace,
            permission_mode=permission_mode, approve=approve, as_json=as_json, console=console, stats=stats,
            interrupted=interrupted,
        ))
    except KeyboardInterrupt:
        stats.finish_reason = "aborted"
        interrupted[0] = True
    except HarnessConfigurationError as exc:
        click.echo(f"harness run: {exc}", err=True)
        ctx.meta["harness.run"] = {**stats.to_json(), "exit_code": 2, "workspace": str(workspace)}
        ctx.exit(2)
    except HarnessError as exc:
        if getattr(exc, "error_type", None) == "configuration":
            click.echo(f"harness run: {exc}. Or try `harness demo` to see a harness work without a model.", err=True)
            ctx.meta["harness.run"] = {**stats.to_json(), "exit_code": 2, "workspace": str(workspace)}
            ctx.exit(2)
        raise
    code = 130 if interrupted[0] else EXIT_CODES.get(stats.finish_reason, 1)
    ctx.meta["harness.run"] = {**stats.to_json(), "exit_code": code, "workspace": str(workspace)}
    ctx.exit(code)


COMMANDS: dict[str, click.Command] = {"run": run_command}
"""The core subcommands this module contributes (``cli.py`` adds them to the group)."""
