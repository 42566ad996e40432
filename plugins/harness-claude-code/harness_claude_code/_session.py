"""A harness session over Claude Code: one :class:`~harness_core.AdapterSession`.

The session owns at most one CLI process at a time (:class:`~._runtime.Runtime`). It is
started at the first prompt, kept across turns, and restarted, resuming the same Claude
Code session id, when it died, was killed by an abort, or must change (other host tools or
instructions). Callbacks of the process (permission callback, ``PreToolUse`` hook, MCP
server) route to the current turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

import anyio
import attrs

from harness_core import (
    HarnessConfigurationError,
    HostToolSpec,
    PromptRequest,
    StartRequest,
    ToolOutput,
    TurnStateError,
)
from harness_core.parts.models import ToolOutputDeniedPart

from ._builtins import BY_NATIVE
from ._mcp import build_host_server
from ._options import ProcessSpec, build_options, config_dir_of
from ._projection import identify_tool
from ._runtime import Runtime, RuntimeStartError
from ._settings import HOST_PREFIX, HOST_SERVER, ClaudeCodeSettings
from ._state import (
    ApprovalAnswer,
    ContinueState,
    PendingCall,
    ResultAnswer,
    ResumeState,
    parse_continue_state,
    parse_resume_state,
)
from ._transcript import (
    LateResult,
    TranscriptError,
    append_results,
    find_transcript,
    relocate_transcript,
)
from ._turn import DEFAULT_DENIAL, ClaudeCodeTurn

if TYPE_CHECKING:
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext

__all__ = ["ClaudeCodeSession"]

_MISSING_SESSION: Final = "No conversation found"
_ASK: Final = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}


def _unwrap(state: object) -> object:
    """Accept the adapter's own state, or a core state envelope carrying it under ``adapter``."""
    if isinstance(state, dict) and "adapter" in state and "claude_session_id" not in state:
        return state["adapter"]
    return state


class ClaudeCodeSession:
    """Live Claude Code state of one harness session (see the module docstring).

    Attributes:
        session_id: the harness session id.
        claude_session_id: Claude Code's own session id, once known.
        cwd: the workspace the CLI runs in.
        runtime_error: a description of the last unexpected CLI exit, or ``None``.
    """

    def __init__(self, settings: ClaudeCodeSettings, request: StartRequest) -> None:
        self._settings = settings
        self.session_id = request.session_id
        self._bypass = not request.builtin_approvals
        self._filter = request.builtin_filter
        self._host_tools: tuple[HostToolSpec, ...] = tuple(request.host_tools)
        self._instructions = request.instructions
        self._continue: ContinueState | None = None
        self.claude_session_id: str | None = None
        state_cwd: str | None = None
        if request.continue_from is not None:
            self._continue = parse_continue_state(_unwrap(request.continue_from))
            self.claude_session_id, state_cwd = self._continue.claude_session_id, self._continue.cwd
        elif request.resume_from is not None:
            resumed: ResumeState = parse_resume_state(_unwrap(request.resume_from))
            self.claude_session_id, state_cwd = resumed.claude_session_id, resumed.cwd
        if request.sandbox is not None:
            cwd = Path(request.sandbox.root)
        elif settings.cwd is not None:
            cwd = settings.cwd
        elif state_cwd is not None:
            cwd = Path(state_cwd)
        else:
            cwd = Path.cwd()
        if not cwd.is_dir():
            raise HarnessConfigurationError(f"claude-code session {self.session_id!r}: workspace {str(cwd)!r} is not a directory")
        self.cwd = cwd.resolve()
        if self.claude_session_id is not None and state_cwd is not None and Path(state_cwd) != self.cwd:
            relocate_transcript(config_dir_of(settings), self.claude_session_id, self.cwd)
        self._runtime: Runtime | None = None
        self._spec: ProcessSpec | None = None
        self._turn: ClaudeCodeTurn | None = None
        self._cost_seen = 0.0
        self._destroyed = False
        self.runtime_error: str | None = None
        self._lock = anyio.Lock()

    # -- bookkeeping used by turns --------------------------------------------------------

    def note_claude_session(self, claude_session_id: str) -> None:
        """Record Claude Code's session id (from ``init`` or a result)."""
        self.claude_session_id = claude_session_id

    def turn_cost(self, total_cost_usd: float | None) -> float | None:
        """This turn's cost from the process's cumulative ``total_cost_usd``."""
        if total_cost_usd is None:
            return None
        cost = max(0.0, total_cost_usd - self._cost_seen)
        self._cost_seen = total_cost_usd
        return round(cost, 10)

    def describe_exit(self, error: BaseException | None) -> str:
        """A clear message about an unexpected CLI exit, with its stderr tail."""
        runtime = self._runtime
        pid = f" (pid {runtime.pid})" if runtime is not None and runtime.pid else ""
        tail = "; ".join(runtime.stderr_tail) if runtime is not None else ""
        cause = f": {error}" if error is not None else ""
        resume = (f"; the next prompt restarts it and resumes session {self.claude_session_id}"
                  if self.claude_session_id else "; the next prompt starts it again")
        return f"Claude Code{pid} exited unexpectedly{cause}" + (f" (stderr: {tail})" if tail else "") + resume

    @property
    def runtime_pids(self) -> list[int]:
        """The live CLI process and its descendants (empty when none runs)."""
        return self._runtime.process_tree() if self._runtime is not None else []

    # -- process management -------------------------------------------------------------

    def _spec_for(self, host_tools: Sequence[HostToolSpec], instructions: str | None,
                  *, continue_interrupted: bool = False) -> ProcessSpec:
        key = tuple(
            (t.name, t.description, json.dumps(t.input_schema, sort_keys=True, default=repr), t.read_only)
            for t in host_tools
        )
        return ProcessSpec(
            cwd=self.cwd, bypass=self._bypass, builtin_filter=self._filter, instructions=instructions,
            host_tool_key=key, resume=self.claude_session_id, continue_interrupted=continue_interrupted,
        )

    async def _ensure_runtime(self, host_tools: Sequence[HostToolSpec], spec: ProcessSpec) -> Runtime:
        async with self._lock:
            runtime = self._runtime
            if runtime is not None and runtime.running and self._spec is not None and spec.same_process(self._spec) \
                    and not spec.continue_interrupted:
                return runtime
            if runtime is not None:
                self._runtime = None
                await runtime.close()
            runtime = self._new_runtime(host_tools, spec)
            try:
                await runtime.start()
            except RuntimeStartError as error:
                if spec.resume is None or spec.continue_interrupted or _MISSING_SESSION not in str(error):
                    raise
                # Claude Code writes its transcript lazily: a process that died early may
                # never have saved the conversation. Start a new Claude Code session.
                lost, self.claude_session_id = spec.resume, None
                spec = attrs.evolve(spec, resume=None)
                runtime = self._new_runtime(host_tools, spec)
                await runtime.start()
                self._runtime, self._spec, self._cost_seen = runtime, spec, 0.0
                self.runtime_error = (
                    f"Claude Code had not saved session {lost} (its process ended before writing it); "
                    "a new Claude Code session was started without the earlier conversation"
                )
                return runtime
            self._runtime, self._spec, self._cost_seen = runtime, spec, 0.0
            self.runtime_error = None
            return runtime

    def _new_runtime(self, host_tools: Sequence[HostToolSpec], spec: ProcessSpec) -> Runtime:
        from claude_agent_sdk import HookMatcher

        servers: dict[str, Any] = dict(self._settings.mcp_servers)
        if host_tools:
            servers[HOST_SERVER] = build_host_server(HOST_SERVER, host_tools, self._host_call)
        holder: list[Runtime] = []

        def on_message(message: object) -> None:
            if holder and holder[0] is self._runtime and self._turn is not None:
                self._turn.deliver(message)

        def on_exit(error: BaseException | None) -> None:
            if holder and holder[0] is self._runtime:
                if self._turn is not None:
                    self._turn.runtime_exited(error)
                if error is not None:
                    self.runtime_error = self.describe_exit(error)

        def stderr(line: str) -> None:
            if holder:
                holder[0].record_stderr(line)
            if self._settings.stderr is not None:
                self._settings.stderr(line)

        options = build_options(
            self._settings, spec, mcp_servers=servers, can_use_tool=self._can_use_tool,
            hooks={"PreToolUse": [HookMatcher(matcher=None, hooks=[cast(Any, self._pre_tool_use)])]},
            stderr=stderr,
        )
        runtime = Runtime(options, on_message, on_exit)
        holder.append(runtime)
        return runtime

    async def _pre_tool_use(self, hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        name = hook_input.get("tool_name") if isinstance(hook_input, dict) else None
        if isinstance(name, str) and name.startswith(HOST_PREFIX):
            return {}
        return _ASK

    async def _can_use_tool(self, tool_name: str, tool_input: dict[str, Any],
                            context: ToolPermissionContext) -> PermissionResultAllow | PermissionResultDeny:
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        if tool_name.startswith(HOST_PREFIX):
            return PermissionResultAllow(updated_input=tool_input)
        builtin = BY_NATIVE.get(tool_name)
        if builtin is not None and self._filter is not None and not self._filter.allows(builtin.name):
            return PermissionResultDeny(message=f"The built-in tool {builtin.name!r} is not active in this session.")
        turn = self._turn
        if turn is None or turn.done:
            return PermissionResultDeny(message="No turn is running; the call was refused.")
        answer = await turn.request_approval(context.tool_use_id, tool_name, tool_input)
        if answer.approved:
            return PermissionResultAllow(updated_input=tool_input)
        return PermissionResultDeny(message=answer.reason or DEFAULT_DENIAL)

    async def _host_call(self, tool_use_id: str | None, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        turn = self._turn
        if turn is None or turn.done:
            return ToolOutput("No turn is running; the host tool call was refused.", is_error=True)
        return await turn.request_host_result(tool_use_id, tool_name, arguments)

    def _check_usable(self, action: str) -> None:
        if self._destroyed:
            raise TurnStateError(f"claude-code session {self.session_id!r} is destroyed; cannot {action}")
        if self._turn is not None and not self._turn.done:
            raise TurnStateError(f"claude-code session {self.session_id!r} has an unfinished turn; cannot {action}")

    def _failed_turn(self, message: str, error_type: str) -> ClaudeCodeTurn:
        turn = ClaudeCodeTurn(self, "prompt")
        turn.fail_now(message, error_type)
        return turn

    # -- AdapterSession -------------------------------------------------------------------

    async def prompt(self, request: PromptRequest) -> ClaudeCodeTurn:
        """Start a turn with ``request.prompt``; the CLI is started or reused as needed.

        Raises:
            TurnStateError: the session is destroyed or a turn is unfinished.
        """
        self._check_usable("start a new turn")
        host_tools = tuple(request.host_tools) or self._host_tools
        instructions = request.instructions if request.instructions is not None else self._instructions
        return await self._start_turn("prompt", request.prompt, host_tools, instructions)

    async def _start_turn(self, kind: Any, text: str, host_tools: Sequence[HostToolSpec],
                          instructions: str | None) -> ClaudeCodeTurn:
        turn = ClaudeCodeTurn(self, kind)
        self._turn = turn
        try:
            runtime = await self._ensure_runtime(host_tools, self._spec_for(host_tools, instructions))
            await runtime.send(text)
        except RuntimeStartError as error:
            self._turn = failed = self._failed_turn(str(error), "runtime-start")
            return failed
        except Exception as error:
            message = f"could not send the prompt to Claude Code: {error}"
            self._turn = failed = self._failed_turn(message, "runtime-crashed")
            return failed
        return turn

    async def compact(self) -> ClaudeCodeTurn:
        """Run Claude Code's ``/compact`` as a turn; its events include a ``compaction`` part.

        Raises:
            TurnStateError: the session is destroyed or a turn is unfinished.
        """
        self._check_usable("compact")
        return await self._start_turn("compact", "/compact", self._host_tools, self._instructions)

    async def resume_turn(self) -> ClaudeCodeTurn:
        """The turn restored from ``continue_from``; answer its calls with the ``submit_*`` methods.

        The turn waits until every restored approval and host call has been answered, then
        continues it (see ``docs/claude-code.md`` for which continuations are lossless).

        Raises:
            TurnStateError: the session was not started with ``continue_from`` or a turn runs.
        """
        if self._continue is None:
            raise TurnStateError(f"claude-code session {self.session_id!r} has no suspended turn to resume")
        self._check_usable("resume a turn")
        state, self._continue = self._continue, None
        turn = ClaudeCodeTurn(self, "continue")
        turn.restore_calls(state.calls)
        for call_id, call in state.calls.items():
            if call.answer is not None or not call.asked:
                continue  # answered already, or never asked: Claude Code will ask again
            if call.kind == "builtin":
                turn.expect_approval(call.approval_id or f"approval-{call_id}", call_id)
            else:
                turn.expect_result(call_id)
        self._turn = turn

        async def prelude() -> None:
            await turn.wait_for_answers()
            await self._continue_turn(turn, state)

        turn.set_prelude(prelude)
        return turn

    async def _continue_turn(self, turn: ClaudeCodeTurn, state: ContinueState) -> None:
        calls = turn.pending_calls()
        session_id = state.claude_session_id
        approved = [c for c in calls.values() if isinstance(c.answer, ApprovalAnswer) and c.answer.approved]
        unanswered = [c for c in calls.values() if c.answer is None]
        # Only answers can be recorded in the transcript: an approved built-in (which only
        # Claude Code can run) or a call it had not asked about yet needs a re-run.
        lossless = not approved and not unanswered
        if lossless:
            results = [self._late_result(call_id, call) for call_id, call in calls.items()]
            try:
                append_results(find_transcript(config_dir_of(self._settings), session_id), results)
            except (TranscriptError, OSError):
                lossless = False
        if lossless:
            for call_id, call in calls.items():
                if isinstance(call.answer, ApprovalAnswer):
                    turn.view.denied[call_id] = call.answer.reason or DEFAULT_DENIAL
                    turn.add_late_part(ToolOutputDeniedPart(
                        tool_call_id=call_id, tool_name=identify_tool(call.native_name).tool_name,
                        reason=call.answer.reason or DEFAULT_DENIAL, provider_executed=True,
                    ))
        else:
            turn.arm_replay(calls)
        self.claude_session_id = session_id
        spec = self._spec_for(self._host_tools, self._instructions, continue_interrupted=True)
        await self._ensure_runtime(self._host_tools, spec)

    @staticmethod
    def _late_result(call_id: str, call: PendingCall) -> LateResult:
        if isinstance(call.answer, ResultAnswer):
            return LateResult(call_id, call.answer.content, call.answer.is_error)
        reason = call.answer.reason if isinstance(call.answer, ApprovalAnswer) else None
        return LateResult(call_id, reason or DEFAULT_DENIAL, is_error=True)

    async def suspend_turn(self) -> dict[str, Any]:
        """Detach from a turn waiting for the host and return its continue state (JSON).

        The CLI is killed without being interrupted, so its transcript still ends with the
        unanswered calls; see :meth:`resume_turn`.

        Raises:
            TurnStateError: no turn waits for an approval or a host tool result.
        """
        turn = self._turn
        if turn is None or turn.done or not (turn.waiting or turn.kind == "continue"):
            raise TurnStateError(
                f"claude-code session {self.session_id!r}: only a turn waiting for an approval or a "
                "host tool result can be suspended"
            )
        if self.claude_session_id is None:
            raise TurnStateError(f"claude-code session {self.session_id!r}: Claude Code has not reported its session id yet")
        state = ContinueState(claude_session_id=self.claude_session_id, cwd=str(self.cwd), calls=turn.pending_calls())
        await self._await_transcript(list(state.calls))
        turn.suspended = True
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.kill()
        turn.end("suspended")
        self._turn = None
        return state.model_dump(mode="json")

    async def _await_transcript(self, call_ids: list[str], timeout: float = 2.0) -> None:
        """Give the CLI a moment to write the pending calls to its transcript before it is killed."""
        if not call_ids or self.claude_session_id is None:
            return
        with anyio.move_on_after(timeout):
            while True:
                try:
                    text = find_transcript(config_dir_of(self._settings), self.claude_session_id).read_text("utf-8")
                except (TranscriptError, OSError):
                    text = ""
                if all(f'"{call_id}"' in text for call_id in call_ids):
                    return
                await anyio.sleep(0.05)

    async def _abort_turn(self, turn: ClaudeCodeTurn) -> None:
        """Interrupt the CLI (so it stops its tools), then kill its whole process tree."""
        runtime = self._runtime
        if runtime is None:
            return
        self._runtime = None
        if runtime.running:
            await runtime.interrupt(self._settings.interrupt_timeout)
        await runtime.kill()

    async def stop(self) -> dict[str, Any]:
        """Close the CLI (it flushes its transcript) and return the resume state (JSON)."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.close()
        self._destroyed = True
        return ResumeState(claude_session_id=self.claude_session_id, cwd=str(self.cwd)).model_dump(mode="json")

    async def destroy(self) -> None:
        """Abort any turn and kill the CLI's process tree. Idempotent."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        self._destroyed = True
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.kill()
