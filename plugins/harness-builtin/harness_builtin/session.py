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
    BuiltinTool,
    HarnessTool,
    PromptRequest,
    Sandbox,
    StartRequest,
    TurnStateError,
)

from .conversation import Message
from .environment import TurnEnvironment
from .live import LiveConversation
from .mcp_tools import McpToolbox
from .models.base import ModelClient
from .offer import ToolOffer
from .rich_results import client_accepts
from .settings import ToolSettings, TurnLimits
from .state import load_state
from .turn import BuiltinTurn
from .turn_features import TurnFeatures
from .workspace import Workspace

__all__ = ["BuiltinSession"]


class BuiltinSession:
    """Live state of one built-in harness session (see the module docs).

    The session owns its :class:`~harness_builtin.live.LiveConversation` (history, pending
    step, counters) and its :class:`~harness_builtin.offer.ToolOffer` (tools, system
    prompt) and passes both to each turn.

    Attributes:
        request: the :class:`~harness_core.adapter.StartRequest` it was opened with.
        client: the model client.
        sandbox: the workspace sandbox.
        workspace: the built-in tools' view of it.
        workspace_root: the sandbox root (the adapter-session attribute the agent reads to
            strip display paths, also when the adapter picked the workspace itself).
        tools: the built-in tools by name.
        limits / tool_settings: the turn limits and tool bounds.
        detect_file_changes: whether a ``bash`` call's file changes are reported.

    Raises:
        HarnessConfigurationError: a host tool has a built-in's name, or the state to
            resume or continue from is malformed.
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
        mcp: McpToolbox | None = None,
    ) -> None:
        self.request = request
        self.client = client
        self.sandbox = sandbox
        self._owns_sandbox = owns_sandbox
        self.workspace = Workspace(sandbox)
        self.workspace_root = str(sandbox.root)
        self.tools = dict(tools)
        self.limits = limits
        self.tool_settings = tool_settings
        self.detect_file_changes = detect_file_changes
        self._offer = ToolOffer(
            tools=self.tools, read_only=read_only, builtin_filter=request.builtin_filter,
            host_tools=request.host_tools, withheld=request.withheld_host_tools, workspace=self.workspace,
            instructions=[instructions, request.instructions], mcp=mcp, skills=request.skills,
        )
        self._mcp = mcp
        self._environment = TurnEnvironment(
            session_id=request.session_id, client=client, sandbox=sandbox, workspace=self.workspace,
            limits=limits, tool_settings=tool_settings, detect_file_changes=detect_file_changes,
            builtin_approvals=request.builtin_approvals, execute_builtin=request.execute_builtin,
        )
        self._conversation = LiveConversation()
        self._turn: BuiltinTurn | None = None
        self._destroyed = False
        self._continuable = False
        state_data = request.continue_from if request.continue_from is not None else request.resume_from
        if state_data is not None:
            continuing = request.continue_from is not None
            state = load_state(_adapter_part(state_data), where="continue_from" if continuing else "resume_from")
            self._conversation = LiveConversation.from_state(state, continuing=continuing)
            self._continuable = self._conversation.pending is not None
            if self._continuable and state.turn_options is not None:  # plan mode / output go on
                options = state.turn_options
                self._offer.set_prompt((), None, TurnFeatures(output_schema=options.output_schema, mode=options.mode))

    @property
    def tool_result_content(self) -> frozenset[str]:
        """The kinds of rich tool result items the model client sends (the optional
        :class:`~harness_core.adapter.AdapterSession` attribute the agent reads to warn
        about the others on ``tool-result`` parts): ``{"text", "image"}`` for Anthropic,
        ``{"text"}`` for OpenAI Chat."""
        return client_accepts(self.client)

    @property
    def runtime_tools(self) -> Mapping[str, BuiltinTool]:
        """The MCP tools of the connected servers, declared by ``mcp__<server>__<tool>``
        name (the :class:`~harness_core.adapter.AdapterSession` ``runtime_tools``)."""
        return self._offer.mcp_tools()

    async def _close_mcp(self) -> None:
        if self._mcp is not None:
            await self._mcp.aclose()

    def _new_turn(self, *, prompt: str | None = None, compact_only: bool = False) -> BuiltinTurn:
        turn = BuiltinTurn(
            conversation=self._conversation, offer=self._offer, environment=self._environment,
            on_done=self._turn_done, prompt=prompt, compact_only=compact_only,
        )
        self._turn = turn
        return turn

    def _turn_done(self, turn: BuiltinTurn) -> None:
        if self._turn is turn:
            self._turn = None
            self._conversation.reset_counters()

    def _check_alive(self) -> None:
        if self._destroyed:
            raise TurnStateError("this built-in session was destroyed")

    # -- the AdapterSession protocol -----------------------------------------------------

    @property
    def conversation(self) -> LiveConversation:
        """The live conversation (history, pending step, the turn's counters)."""
        return self._conversation

    @property
    def offer(self) -> ToolOffer:
        """The tools and system prompt offered to the model."""
        return self._offer

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (a copy)."""
        return list(self._conversation.messages)

    async def prompt(self, request: PromptRequest) -> BuiltinTurn:
        """Start a turn with the user's prompt.

        Raises:
            TurnStateError: a turn is unfinished, or the session was destroyed.
            HarnessConfigurationError: a host tool has a built-in's name.
        """
        self._check_alive()
        if self._turn is not None or self._conversation.pending is not None:
            raise TurnStateError("a turn of this built-in session is unfinished; continue or abort it first")
        self._offer.set_prompt(request.host_tools, request.instructions,
                               TurnFeatures(output_schema=request.output_schema, mode=request.mode))
        self._conversation.reset_counters()
        return self._new_turn(prompt=request.prompt)

    async def resume_turn(self) -> BuiltinTurn:
        """The unfinished turn restored from ``continue_from``.

        Raises:
            TurnStateError: there is no unfinished turn to continue.
        """
        self._check_alive()
        if self._turn is not None:
            return self._turn
        if not self._continuable or self._conversation.pending is None:
            raise TurnStateError("this built-in session has no unfinished turn to continue")
        self._continuable = False
        return self._new_turn()

    def _state(self, *, with_pending: bool) -> dict[str, Any]:
        return self._conversation.to_state(with_pending=with_pending).model_dump(mode="json")

    async def suspend_turn(self) -> dict[str, Any]:
        """Detach from the unfinished turn; JSON state for ``continue_from``. The model
        client's connections are closed (continue in a new session)."""
        self._check_alive()
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.suspend()
        self._continuable = self._conversation.pending is not None
        state = self._state(with_pending=True)
        features = self._offer.features
        if self._continuable:
            schema = None if features.output_schema is None else dict(features.output_schema)
            state["turn_options"] = {"output_schema": schema, "mode": features.mode}
        await self.client.aclose()
        await self._close_mcp()
        return state

    async def stop(self) -> dict[str, Any]:
        """JSON state for ``resume_from``; an unfinished step's calls get "not run" results.
        The model client's connections are closed (resume in a new session)."""
        self._check_alive()
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.abort()
        self._conversation.close_pending("Not run: the session was stopped before this call finished.")
        state = self._state(with_pending=False)
        await self.client.aclose()
        await self._close_mcp()
        return state

    async def destroy(self) -> None:
        """Abort a running turn and release the sandbox when the session made it. Idempotent."""
        if self._destroyed:
            return
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.abort()
        self._destroyed = True
        await self._close_mcp()
        if self._owns_sandbox:
            await self.sandbox.stop()
        await self.client.aclose()

    async def compact(self) -> BuiltinTurn:
        """Summarize older turns now; the returned turn's events include a ``compaction`` part.

        Raises:
            TurnStateError: a turn is unfinished.
        """
        self._check_alive()
        if self._turn is not None or self._conversation.pending is not None:
            raise TurnStateError("cannot compact while a turn of this built-in session is unfinished")
        self._conversation.reset_counters()
        return self._new_turn(compact_only=True)


def _adapter_part(data: Mapping[str, Any]) -> Any:
    """Accept the adapter's own state, or core state that embeds it under ``adapter``."""
    if "messages" not in data and isinstance(data.get("adapter"), Mapping):
        return dict(data["adapter"])
    return dict(data)
