"""A built-in harness session: the conversation, the workspace, and at most one turn.

Implements :class:`~harness_core.adapter.AdapterSession`. The conversation lives in this
process and is returned as JSON by :meth:`BuiltinSession.stop` (for ``resume_from``) and
:meth:`BuiltinSession.suspend_turn` (for ``continue_from``, with the unfinished step),
so both work in another process.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core import (
    HarnessConfigurationError,
    HarnessTool,
    HostToolSpec,
    PromptRequest,
    Sandbox,
    StartRequest,
    TurnStateError,
)

from .conversation import Message, TokenEstimator, ToolResultRecord, ToolResultsMessage
from .models.base import ModelClient, ToolSpec
from .prompt import system_prompt
from .settings import ToolSettings, TurnLimits
from .state import PendingStep, SessionState, TurnCounters, load_state
from .turn import BuiltinTurn
from .workspace import Workspace

__all__ = ["BuiltinSession"]


class BuiltinSession:
    """Live state of one built-in harness session (see the module docs).

    Attributes:
        request: the :class:`~harness_core.adapter.StartRequest` it was opened with.
        client: the model client.
        sandbox: the workspace sandbox.
        workspace: the built-in tools' view of it.
        tools: the built-in tools by name.
        limits / tool_settings: the turn limits and tool bounds.
    """

    def __init__(
        self,
        *,
        request: StartRequest,
        client: ModelClient,
        sandbox: Sandbox,
        owns_sandbox: bool,
        tools: Mapping[str, HarnessTool],
        read_only: frozenset[str],
        limits: TurnLimits,
        tool_settings: ToolSettings,
        detect_file_changes: bool,
        instructions: str | None,
    ) -> None:
        self.request = request
        self.client = client
        self.sandbox = sandbox
        self._owns_sandbox = owns_sandbox
        self.workspace = Workspace(sandbox)
        self.tools = dict(tools)
        self._read_only = read_only
        self.limits = limits
        self.tool_settings = tool_settings
        self.detect_file_changes = detect_file_changes
        self._adapter_instructions = instructions
        self._builtin_specs = {
            name: ToolSpec(name, tool.description, tool.json_schema) for name, tool in self.tools.items()
        }
        self._host_tools: list[HostToolSpec] = list(request.host_tools)
        self._check_host_names(self._host_tools)
        self._prompt_instructions: str | None = None
        self._messages: list[Message] = []
        self._pending: PendingStep | None = None
        self._counters = TurnCounters()
        self._context_tokens = 0
        self._estimator = TokenEstimator()
        self._state_compactions = 0
        self._turn: BuiltinTurn | None = None
        self._destroyed = False
        self._continuable = False
        state_data = request.continue_from if request.continue_from is not None else request.resume_from
        if state_data is not None:
            where = "continue_from" if request.continue_from is not None else "resume_from"
            state = load_state(_adapter_part(state_data), where=where)
            self._messages = list(state.messages)
            self._state_compactions = state.compactions
            if request.continue_from is not None and state.pending is not None:
                self._pending = state.pending
                self._counters = state.counters or TurnCounters()
                self._continuable = True
            elif state.pending is not None:
                self._pending = state.pending
                self._close_pending("Not run: the session was resumed without continuing its turn.")

    # -- configuration helpers used by the turn ----------------------------------------

    def _check_host_names(self, specs: list[HostToolSpec]) -> None:
        clash = sorted({spec.name for spec in specs} & set(self.tools))
        if clash:
            raise HarnessConfigurationError(
                f"host tool(s) {', '.join(map(repr, clash))} have the name of a built-in tool of the "
                "built-in harness; rename them or make the built-in inactive"
            )

    def _builtin_allowed(self, name: str) -> bool:
        flt = self.request.builtin_filter
        return flt is None or flt.allows(name)

    def _read_only_names(self) -> frozenset[str]:
        host = {spec.name for spec in self._host_tools if spec.read_only}
        allowed = {name for name in self._read_only if self._builtin_allowed(name)}
        return frozenset(allowed | host)

    def _host_schemas(self) -> dict[str, Any]:
        return {spec.name: spec.input_schema for spec in self._host_tools}

    def _system(self) -> str:
        names = [n for n in self.tools if self._builtin_allowed(n)] + [t.name for t in self._host_tools]
        return system_prompt(
            self.workspace.root, names,
            [self._adapter_instructions, self.request.instructions, self._prompt_instructions],
        )

    def _close_pending(self, reason: str) -> None:
        """Give every unanswered call of the pending step a result, so the history stays
        valid (every call followed by its result), and drop the step."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self._messages.append(ToolResultsMessage(results=tuple(
            ToolResultRecord(
                call_id=c.call_id, name=c.name,
                content=c.content if c.content is not None else reason or "Not run.",
                is_error=c.is_error if c.content is not None else True,
            )
            for c in pending.calls
        )))

    def _turn_done(self, turn: BuiltinTurn) -> None:
        if self._turn is turn:
            self._turn = None
            self._counters = TurnCounters()

    def _check_alive(self) -> None:
        if self._destroyed:
            raise TurnStateError("this built-in session was destroyed")

    # -- the AdapterSession protocol -----------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (a copy)."""
        return list(self._messages)

    async def prompt(self, request: PromptRequest) -> BuiltinTurn:
        """Start a turn with the user's prompt.

        Raises:
            TurnStateError: a turn is unfinished, or the session was destroyed.
            HarnessConfigurationError: a host tool has a built-in's name.
        """
        self._check_alive()
        if self._turn is not None or self._pending is not None:
            raise TurnStateError("a turn of this built-in session is unfinished; continue or abort it first")
        if request.host_tools:
            specs = list(request.host_tools)
            self._check_host_names(specs)
            self._host_tools = specs
        self._prompt_instructions = request.instructions
        self._counters = TurnCounters()
        turn = BuiltinTurn(self, prompt=request.prompt)
        self._turn = turn
        return turn

    async def resume_turn(self) -> BuiltinTurn:
        """The unfinished turn restored from ``continue_from``.

        Raises:
            TurnStateError: there is no unfinished turn to continue.
        """
        self._check_alive()
        if self._turn is not None:
            return self._turn
        if not self._continuable or self._pending is None:
            raise TurnStateError("this built-in session has no unfinished turn to continue")
        self._continuable = False
        turn = BuiltinTurn(self)
        self._turn = turn
        return turn

    def _state(self, *, with_pending: bool) -> dict[str, Any]:
        state = SessionState(
            messages=list(self._messages),
            pending=self._pending if with_pending else None,
            counters=self._counters if with_pending else None,
            compactions=self._state_compactions,
        )
        return state.model_dump(mode="json")

    async def suspend_turn(self) -> dict[str, Any]:
        """Detach from the unfinished turn; JSON state for ``continue_from``. The model
        client's connections are closed (continue in a new session)."""
        self._check_alive()
        turn, self._turn = self._turn, None
        if turn is not None:
            turn._suspended = True
            await turn._stream.close()
        self._continuable = self._pending is not None
        state = self._state(with_pending=True)
        await self.client.aclose()
        return state

    async def stop(self) -> dict[str, Any]:
        """JSON state for ``resume_from``; an unfinished step's calls get "not run" results.
        The model client's connections are closed (resume in a new session)."""
        self._check_alive()
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.abort()
        self._close_pending("Not run: the session was stopped before this call finished.")
        state = self._state(with_pending=False)
        await self.client.aclose()
        return state

    async def destroy(self) -> None:
        """Abort a running turn and release the sandbox when the session made it. Idempotent."""
        if self._destroyed:
            return
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.abort()
        self._destroyed = True
        if self._owns_sandbox:
            await self.sandbox.stop()
        await self.client.aclose()

    async def compact(self) -> BuiltinTurn:
        """Summarize older turns now; the returned turn's events include a ``compaction`` part.

        Raises:
            TurnStateError: a turn is unfinished.
        """
        self._check_alive()
        if self._turn is not None or self._pending is not None:
            raise TurnStateError("cannot compact while a turn of this built-in session is unfinished")
        self._counters = TurnCounters()
        turn = BuiltinTurn(self, compact_only=True)
        self._turn = turn
        return turn


def _adapter_part(data: Mapping[str, Any]) -> Any:
    """Accept the adapter's own state, or core state that embeds it under ``adapter``."""
    if "messages" not in data and isinstance(data.get("adapter"), Mapping):
        return dict(data["adapter"])
    return dict(data)
