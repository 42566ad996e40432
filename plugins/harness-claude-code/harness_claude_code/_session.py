"""A harness session over Claude Code: one :class:`~harness_core.AdapterSession`.

The session owns at most one CLI process at a time (:class:`~._process.SessionProcess`).
It is started at the first prompt, kept across turns, and restarted, resuming the same
Claude Code session id, when it died, was killed by an abort, or must change (other host
tools or instructions). Callbacks of the process (permission callback, ``PreToolUse`` hook,
MCP server) route to the current turn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness_core import (
    BuiltinTool,
    ErrorPart,
    HarnessConfigurationError,
    HostToolSpec,
    PromptRequest,
    StartRequest,
    TurnStateError,
)

from ._callbacks import RuntimeCallbacks
from ._continuation import await_transcript, prepare_continuation
from ._options import ProcessSpec, config_dir_of
from ._process import SessionProcess
from ._rich import RESULT_CONTENT
from ._runtime import RuntimeStartError
from ._sandboxing import sandbox_settings
from ._settings import ClaudeCodeSettings
from ._skills import install_claude_skills
from ._state import ContinueState, ResumeState, parse_continue_state, parse_resume_state
from ._transcript import find_transcript, relocate_transcript
from ._turn import ClaudeCodeTurn, TurnKind

__all__ = ["ClaudeCodeSession"]


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
        self._withheld_host_tools = request.withheld_host_tools
        self._instructions = request.instructions
        self._output_schema: str | None = None  # the current prompt's (a change restarts the CLI)
        self._plan = False
        self._continue: ContinueState | None = None
        self.claude_session_id: str | None = None
        state_cwd: str | None = None
        self._unsent: list[tuple[str, str]] = []  # steering for a continued turn whose CLI is not up yet
        self._continuing = False
        if request.continue_from is not None:
            self._continue = parse_continue_state(_unwrap(request.continue_from))
            self.claude_session_id, state_cwd = self._continue.claude_session_id, self._continue.cwd
            self._plan = self._continue.plan  # fail closed: a plan-mode turn stays read-only
            schema = self._continue.output_schema
            self._output_schema = json.dumps(schema, sort_keys=True) if schema is not None else None
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
        self._skills = install_claude_skills(settings, request.skills) is not None
        self.workspace_root = str(self.cwd)
        """The workspace (``AdapterSession.workspace_root``): the permission mode covers paths inside it only."""
        runtime_dirs = [config_dir_of(settings), *([settings.home] if settings.home is not None else [])]
        self._sandbox = sandbox_settings(request.sandbox, self.cwd, runtime_dirs)
        if self.claude_session_id is not None and state_cwd is not None and Path(state_cwd) != self.cwd:
            relocate_transcript(config_dir_of(settings), self.claude_session_id, self.cwd)
        self._turn: ClaudeCodeTurn | None = None
        self._live_host_tools: frozenset[str] = frozenset()  # read-only host tools of the current prompt
        callbacks = RuntimeCallbacks(lambda: self._turn, self._filter, plan_mode=lambda: self._plan, bypass=self._bypass,
                                     read_only_host_tools=lambda: self._live_host_tools,
                                     mcp_declaration=self.mcp_declaration)
        self._process = SessionProcess(settings, callbacks, self._on_message, self._on_exit)
        self._destroyed = False
        self.runtime_error: str | None = None

    # -- the TurnOwner protocol (used by turns) ---------------------------------------------

    def note_claude_session(self, claude_session_id: str) -> None:
        """Record Claude Code's session id (from ``init`` or a result)."""
        self.claude_session_id = claude_session_id

    def turn_cost(self, total_cost_usd: float | None) -> float | None:
        """This turn's cost in US dollars from the process's cumulative ``total_cost_usd``."""
        return self._process.turn_cost(total_cost_usd)

    def runtime_failed(self, error: BaseException | None) -> str:
        """Record an unexpected CLI exit in :attr:`runtime_error`; returns the message."""
        self.runtime_error = self.describe_exit(error)
        return self.runtime_error

    def mcp_declaration(self, native_name: str) -> BuiltinTool | None:
        """The declaration of an external MCP tool for its approval request, else None."""
        return self._process.mcp.declaration(native_name)

    @property
    def tool_result_content(self) -> frozenset[str]:
        """Rich host tool result items Claude Code passes on (MCP text and image content);
        the agent warns on ``tool-result`` parts about the others."""
        return RESULT_CONTENT

    @property
    def runtime_tools(self) -> Mapping[str, BuiltinTool]:
        """The external MCP servers' tools the CLI reported, by ``mcp__<server>__<tool>``."""
        return self._process.mcp.tools

    async def send_user_message(self, text: str) -> None:
        """Steering: a user message on the CLI's streaming input (the turn's ``steer``);
        Claude Code adds it to the running turn, or answers it in a CLI turn of its own,
        which the harness turn then spans (:mod:`._steering`).

        Raises:
            TurnStateError: no turn runs (it is over, or none was started).
        """
        turn = self._turn
        if turn is None or turn.done:
            raise TurnStateError("the Claude Code turn is over; send a new prompt instead of steering it")
        message_id = turn.steering.message_id()
        turn.steering.sent(message_id)  # before the write: its result may come at once
        if self._continuing:  # a continued turn's CLI starts once its calls are answered
            self._unsent.append((text, message_id))
            return
        try:
            await self._process.send(text, message_id=message_id)
        except BaseException:
            turn.steering.not_sent(message_id)
            raise

    async def abort_runtime(self) -> None:
        """Interrupt the CLI (so it stops its tools), then kill its whole process tree."""
        await self._process.abort()

    def describe_exit(self, error: BaseException | None) -> str:
        """A clear message about an unexpected CLI exit, with its stderr tail."""
        return self._process.describe_exit(error, self.claude_session_id)

    @property
    def runtime_pids(self) -> list[int]:
        """The live CLI process and its descendants (empty when none runs)."""
        return self._process.pids

    # -- process events -------------------------------------------------------------------

    def _on_message(self, message: object) -> None:
        if self._turn is not None:
            self._turn.deliver(message)

    def _on_exit(self, error: BaseException | None) -> None:
        if self._turn is not None:
            self._turn.runtime_exited(error)
        if error is not None:
            self.runtime_error = self.describe_exit(error)

    def _spec_for(self, host_tools: Sequence[HostToolSpec], instructions: str | None,
                  *, continue_interrupted: bool = False) -> ProcessSpec:
        key = tuple(
            (t.name, t.description, json.dumps(t.input_schema, sort_keys=True, default=repr), t.read_only)
            for t in host_tools
        )
        return ProcessSpec(
            cwd=self.cwd, bypass=self._bypass and not self._plan, builtin_filter=self._filter, instructions=instructions,
            host_tool_key=key, resume=self.claude_session_id, continue_interrupted=continue_interrupted,
            sandbox=self._sandbox, output_schema=self._output_schema, plan=self._plan, skills=self._skills,
        )

    async def _ensure_process(self, host_tools: Sequence[HostToolSpec], spec: ProcessSpec) -> None:
        await self._process.ensure(host_tools, spec)
        lost = self._process.lost_session
        if lost is None:
            self.runtime_error = None
            return
        self.claude_session_id = None
        self.runtime_error = (
            f"Claude Code had not saved session {lost} (its process ended before writing it); "
            "a new Claude Code session was started without the earlier conversation"
        )

    def _check_usable(self, action: str) -> None:
        if self._destroyed:
            raise TurnStateError(f"claude-code session {self.session_id!r} is destroyed; cannot {action}")
        if self._turn is not None and not self._turn.done:
            raise TurnStateError(f"claude-code session {self.session_id!r} has an unfinished turn; cannot {action}")

    def _new_turn(self, kind: TurnKind) -> ClaudeCodeTurn:
        turn = ClaudeCodeTurn(self, kind, withhold_calls=not self._bypass)
        turn.view.withheld_host_tools = self._withheld_host_tools
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
        schema = request.output_schema
        self._output_schema = json.dumps(schema, sort_keys=True) if schema is not None else None
        self._plan = request.mode == "plan"
        return await self._start_turn("prompt", request.prompt, self._offered(host_tools), instructions)

    def _offered(self, host_tools: Sequence[HostToolSpec]) -> tuple[HostToolSpec, ...]:
        """The host tools the CLI gets: in plan mode the read-only ones only (the built-in harness's rule)."""
        offered = tuple(tool for tool in host_tools if tool.read_only or not self._plan)
        self._live_host_tools = frozenset(tool.name for tool in offered if tool.read_only)
        return offered

    async def _start_turn(self, kind: TurnKind, text: str, host_tools: Sequence[HostToolSpec],
                          instructions: str | None) -> ClaudeCodeTurn:
        turn = self._turn = self._new_turn(kind)
        self._continuing, self._unsent = False, []
        try:
            await self._ensure_process(host_tools, self._spec_for(host_tools, instructions))
            for message in self._process.mcp.failures():
                turn.notice(ErrorPart(error=message, error_type="mcp-server-failed"))
            await self._process.send(text, message_id=turn.steering.message_id())
        except RuntimeStartError as error:
            turn.fail_now(str(error), "runtime-start")
        except Exception as error:
            turn.fail_now(f"could not send the prompt to Claude Code: {error}", "runtime-crashed")
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
        turn = self._turn = self._new_turn("continue")
        turn.restore(state.calls)
        config_dir, claude_session = config_dir_of(self._settings), state.claude_session_id
        turn.runtime.read_transcript_with(lambda: find_transcript(config_dir, claude_session))

        async def prelude() -> None:
            await turn.wait_for_answers()
            prepare_continuation(turn, config_dir_of(self._settings), state.claude_session_id)
            self.claude_session_id = state.claude_session_id
            host_tools = self._offered(self._host_tools)
            spec = self._spec_for(host_tools, self._instructions, continue_interrupted=True)
            await self._ensure_process(host_tools, spec)
            self._continuing = False
            unsent, self._unsent = self._unsent, []
            for text, message_id in unsent:
                await self._process.send(text, message_id=message_id)

        self._continuing = True
        turn.set_prelude(prelude)
        return turn

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
        schema = json.loads(self._output_schema) if self._output_schema is not None else None
        state = ContinueState(claude_session_id=self.claude_session_id, cwd=str(self.cwd), calls=turn.pending_calls(),
                              plan=self._plan, output_schema=schema)
        await await_transcript(config_dir_of(self._settings), self.claude_session_id, list(state.calls))
        turn.suspended = True
        await self._process.kill()
        turn.end("suspended")
        self._turn = None
        return state.model_dump(mode="json")

    async def stop(self) -> dict[str, Any]:
        """Close the CLI (it flushes its transcript) and return the resume state (JSON)."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        await self._process.close()
        self._destroyed = True
        return ResumeState(claude_session_id=self.claude_session_id, cwd=str(self.cwd)).model_dump(mode="json")

    async def destroy(self) -> None:
        """Abort any turn and kill the CLI's process tree. Idempotent."""
        if self._turn is not None and not self._turn.done:
            await self._turn.abort()
        self._destroyed = True
        await self._process.kill()
