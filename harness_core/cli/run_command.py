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
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import click
from rich.console import Console

from harness_core.cli.run_approver import Approver
from harness_core.cli.run_interrupts import ABORT_REASON, Interrupts
from harness_core.cli.run_output import EXIT_CODES, JsonWriter, Renderer, Stats
from harness_core.cli.sandbox_choice import make_sandbox
from harness_core.errors import HarnessConfigurationError, HarnessError
from harness_core.parts.models import AbortPart, Part, ToolApprovalRequestPart

if TYPE_CHECKING:
    from harness_core.sandbox import Sandbox

__all__ = ["COMMANDS", "EXIT_CODES", "run_command"]


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
    interrupts: Interrupts,
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
                sink(AbortPart(reason=ABORT_REASON))
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
            renderer.note(f"aborted: {ABORT_REASON}")
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
    interrupts: Interrupts,
) -> None:
    """Start the session, stream the turn, answer approvals, and always clean up."""
    from harness_core.agent.answers import ApprovalResponse
    from harness_core.agent.turn_state import TurnState

    def emit(part: Part) -> None:
        stats.observe(part)
        sink(part)

    approver = Approver(approve, renderer, interactive=_stdin_is_tty(), ask=_ask_line)
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
            await session.abort_turn(ABORT_REASON)
            emit(AbortPart(reason=ABORT_REASON))
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
    interrupts = Interrupts()

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
            Renderer(console).note(f"aborted: {ABORT_REASON}")
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
