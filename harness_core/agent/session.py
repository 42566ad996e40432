"""Harness sessions: the live state of one conversation with a runtime.

Create one with :meth:`HarnessAgent.create_session() <harness_core.agent.harness_agent.HarnessAgent.create_session>`;
run turns on it with ``agent.stream()`` / ``agent.generate()``. A session holds the
adapter's session, the sandbox, the session's tool context, and the unfinished turn (if
any) with its pending approvals and pending client-side tool calls, keyed by id.

Lifecycle: :meth:`HarnessSession.suspend_turn` detaches a paused turn into JSON state that
another process continues with ``create_session(continue_from=state)``;
:meth:`HarnessSession.stop` detaches an idle session into JSON state for
``create_session(resume_from=state)``; :meth:`HarnessSession.destroy` releases everything
(idempotent). A stopped or destroyed session refuses further turns with
:class:`~harness_core.errors.TurnStateError`. Sessions are async context managers that
destroy themselves on exit::

    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="List the files")
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any

from harness_core.adapter import AdapterSession, BuiltinFilter
from harness_core.agent.session_control import SessionControl
from harness_core.agent.state import STATE_VERSION, PendingApprovalState, PendingToolCallState
from harness_core.agent.steer import steer_turn
from harness_core.agent.turn_state import TurnState
from harness_core.errors import TurnStateError
from harness_core.sandbox import Sandbox, kill_spawned
from harness_core.tools.definition import BuiltinTool, HarnessTool

if TYPE_CHECKING:
    from harness_core.agent.harness_agent import HarnessAgent
    from harness_core.agent.results import StreamResult

__all__ = ["HarnessSession"]

logger = logging.getLogger("harness_core")


class HarnessSession:
    """One live harness session. Build it with ``await agent.create_session(...)``.

    Attributes:
        session_id: the session id (stable across processes).
        agent: the agent that created it.
        sandbox: the session sandbox, or ``None``.
    """

    def __init__(
        self,
        *,
        agent: HarnessAgent,
        session_id: str,
        control: SessionControl,
        sandbox: Sandbox | None,
        tools_context: Mapping[str, Any] | None,
        builtin_filter: BuiltinFilter | None,
        builtin_approvals: bool,
    ) -> None:
        self.agent = agent
        self.session_id = session_id
        self.sandbox = sandbox
        self.control = control
        """The live turn state shared with the agent and the turn runner (read it, don't write it)."""
        self._tools_context = tools_context
        self._builtin_filter = builtin_filter
        self._builtin_approvals = builtin_approvals

    # -- introspection ---------------------------------------------------------------

    @property
    def state(self) -> TurnState:
        """The turn state: idle, running, awaiting-approval, awaiting-tool-result or suspended.

        In step with the stream: while a slice streams, the state its consumer has read so
        far (the previous state until ``start`` is read, ``running`` from ``start``, the new
        state from the moment the consumer receives ``finish`` or ``abort``).
        """
        return self.control.visible_state

    @property
    def harness_id(self) -> str:
        """The adapter's harness id."""
        return self.agent.harness_id

    @property
    def destroyed(self) -> bool:
        """True after :meth:`destroy`."""
        return self.control.closed == "destroyed"

    @property
    def closed(self) -> bool:
        """True after :meth:`stop` or :meth:`destroy` (the session refuses turns)."""
        return self.control.closed is not None

    @property
    def tools_context(self) -> Mapping[str, Any]:
        """The tool context map in effect: the session's, else the agent's (read-only)."""
        chosen = self._tools_context if self._tools_context is not None else self.agent.tools_context
        return MappingProxyType(dict(chosen or {}))

    @property
    def builtin_filter(self) -> BuiltinFilter | None:
        """The filter the adapter received for native built-in filtering, or ``None``."""
        return self._builtin_filter

    @property
    def builtin_approvals(self) -> bool:
        """True when every built-in call goes through the approval pipeline."""
        return self._builtin_approvals

    @property
    def inactive_tools(self) -> frozenset[str]:
        """Names (host and built-in) the runtime may not call in this session."""
        settings = self.control.settings
        return frozenset(settings.inactive_builtins) | frozenset(settings.inactive)

    @property
    def adapter_session(self) -> AdapterSession:
        """The adapter's session object (for adapter-specific features)."""
        return self.control.adapter_session

    @property
    def runtime_tools(self) -> Mapping[str, BuiltinTool]:
        """Tools the runtime learned at run time (an MCP server's tools, by
        ``mcp__<server>__<tool>``), from the adapter session's optional ``runtime_tools``
        attribute; empty when it has none. Read-only; may change as servers come and go."""
        tools = getattr(self.control.adapter_session, "runtime_tools", None)
        return MappingProxyType(dict(tools)) if isinstance(tools, Mapping) else MappingProxyType({})

    @property
    def tools(self) -> Mapping[str, HarnessTool | BuiltinTool]:
        """Every tool of this session by harness-facing name: the agent's tools (host tools
        and declared built-ins, ``agent.tools``) and the :attr:`runtime_tools`."""
        return MappingProxyType({**self.agent.tools, **self.runtime_tools})

    @property
    def pending_approvals(self) -> Mapping[str, PendingApprovalState]:
        """Approval id -> call waiting for a decision (read-only)."""
        return MappingProxyType(dict(self.control.turn.pending_approvals if self.control.turn else {}))

    @property
    def pending_tool_calls(self) -> Mapping[str, PendingToolCallState]:
        """Call id -> client-side call waiting for its result (read-only)."""
        return MappingProxyType(dict(self.control.turn.pending_results if self.control.turn else {}))

    def has_unfinished_turn(self) -> bool:
        """True while a turn is running, paused or suspended."""
        return self.control.state is not TurnState.IDLE

    def builtin_inactive_reason(self, name: str) -> str | None:
        """Why the built-in ``name`` may not run in this session, or ``None`` when it may."""
        return self.control.settings.builtin_inactive_reason(name)

    @property
    def contract_violations(self) -> tuple[str, ...]:
        """Adapter contract violations seen in this session (duplicated or missing parts).

        Empty for an adapter that follows docs/adapters.md; the conformance suite asserts it.
        Each is also logged as an error on the ``harness_core.contract`` logger.
        """
        return tuple(self.control.violations)

    def __repr__(self) -> str:
        return f"<HarnessSession {self.session_id!r} harness={self.harness_id!r} state={self.control.state.value}>"

    # -- state checks (used by the agent) ----------------------------------------------

    def check_open(self) -> None:
        if self.control.closed is not None:
            raise TurnStateError(f"session {self.session_id!r} was {self.control.closed} and refuses further turns")

    def check_can_prompt(self) -> None:
        self.check_open()
        if self.control.state is TurnState.SUSPENDED:
            raise TurnStateError(
                f"session {self.session_id!r} suspended its unfinished turn; continue it with "
                "agent.create_session(continue_from=state)"
            )
        if self.control.state is not TurnState.IDLE or self.control.active is not None:
            raise TurnStateError(
                f"session {self.session_id!r} has an unfinished turn ({self.control.state.value}); continue it with "
                "continue_stream()/continue_generate(), or abort it with session.abort_turn(), before a new prompt"
            )

    def check_can_continue(self) -> None:
        self.check_open()
        if self.control.state is TurnState.SUSPENDED:
            raise TurnStateError(
                f"session {self.session_id!r} suspended its turn; continue it in a session created with "
                "agent.create_session(continue_from=state)"
            )
        if self.control.active is not None or self.control.state is TurnState.RUNNING:
            raise TurnStateError(f"session {self.session_id!r} is running a turn; wait for its result slice to finish")
        stopped = self.control.state is TurnState.STOPPED
        if not (self.control.state.paused or stopped) or self.control.turn is None:
            raise TurnStateError(f"session {self.session_id!r} has no paused turn to continue (state: {self.control.state.value})")

    # -- lifecycle ---------------------------------------------------------------------

    async def suspend_turn(self) -> dict[str, Any]:
        """Detach the paused turn and return JSON state to continue it later, anywhere.

        Returns:
            Versioned JSON data (see :mod:`harness_core.agent.state`): the pending approvals and
            pending client-side tool calls keyed by id, the decisions already taken, and
            the adapter's own state. Tool context is never included. The session becomes
            ``suspended`` and refuses further turns; continue with
            ``agent.create_session(continue_from=state)`` in this or another process.

        Raises:
            TurnStateError: the session is closed, or its turn is not paused.
            HarnessCapabilityUnsupportedError: the runtime cannot suspend a turn.
        """
        self.check_open()
        if self.control.active is not None or not self.control.state.paused or self.control.turn is None:
            raise TurnStateError(
                f"session {self.session_id!r} can only suspend a paused turn (awaiting-approval or "
                f"awaiting-tool-result); its state is {self.control.state.value}"
            )
        turn = self.control.turn
        adapter_state = await self.control.adapter_session.suspend_turn()
        state: dict[str, Any] = {
            "version": STATE_VERSION,
            "kind": "suspended-turn",
            "harness_id": self.harness_id,
            "session_id": self.session_id,
            "state": self.control.state.value,
            "pending_approvals": {k: v.model_dump(mode="json") for k, v in turn.pending_approvals.items()},
            "pending_tool_results": {k: v.model_dump(mode="json") for k, v in turn.pending_results.items()},
            "decided": {k: v.model_dump(mode="json") for k, v in turn.decided.items()},
            "adapter": dict(adapter_state),
        }
        features = self.control.features
        if features is not None and features.output is not None:  # the continued answer is validated too
            state["output"] = features.output.to_state()
        if turn.held_steering:  # steering not delivered yet: the continuation delivers it
            state["steering"] = list(turn.held_steering)
        trace = self.control.features.trace if self.control.features is not None else None
        if trace is not None:  # telemetry: the continuation's turn span is a child of this one
            state["traceparent"] = trace.traceparent()
            trace.detach()
        self.control.turn = None
        self.control.state = TurnState.SUSPENDED
        signer = self.agent.config.state_signer
        return signer.sign(state) if signer is not None else state

    async def steer_turn(self, text: str) -> None:
        """Add the user message ``text`` to the unfinished turn (steering).

        Works while a slice streams (``running``), and while the turn waits for answers or
        was stopped by ``stop_when``; when the model sees it is the runtime's choice
        (:mod:`harness_core.steering`, the adapter pages).

        Raises:
            HarnessCapabilityUnsupportedError: the adapter does not support steering (its reason).
            TurnStateError: no turn of this session runs in this process, or the session is closed.
            TypeError / ValueError: ``text`` is not a non-empty string.
        """
        await steer_turn(self, text)

    async def abort_turn(self, reason: str | None = None) -> None:
        """Abandon the paused (or suspended) turn: the runtime aborts it, the session goes idle.

        Use it to give up on a turn that waits for an approval or a tool result. A running
        slice is aborted through its result (``result.abort()``) instead.

        Args:
            reason: why, for the log (runtimes have no channel for it).

        Raises:
            TurnStateError: a result slice is running, or the session is closed.
        """
        self.check_open()
        if self.control.active is not None:
            raise TurnStateError(f"session {self.session_id!r} is streaming a result; call result.abort() instead")
        turn, self.control.turn = self.control.turn, None
        self.control.state = TurnState.IDLE
        trace = self.control.features.trace if self.control.features is not None else None
        if trace is not None:  # telemetry: the abandoned turn's spans end now
            trace.slice_done(turn_over=True)
        if turn is not None:
            logger.debug("harness %r: aborting the turn of session %s (%s)", self.harness_id, self.session_id,
                         reason or "no reason given")
            try:
                await turn.adapter_turn.abort()
            except Exception:
                logger.exception("harness %r: aborting the turn of session %s failed", self.harness_id,
                                 self.session_id)

    async def stop(self) -> dict[str, Any]:
        """Detach from the runtime and return JSON state for ``create_session(resume_from=...)``.

        Returns:
            ``{"version": 1, "kind": "stopped-session", "harness_id", "session_id",
            "adapter": {...}}``.

        Raises:
            TurnStateError: a turn is unfinished (suspend or abort it first), or the session
                is closed.
        """
        self.check_open()
        if self.control.state is not TurnState.IDLE or self.control.active is not None:
            raise TurnStateError(
                f"session {self.session_id!r} has an unfinished turn ({self.control.state.value}); suspend_turn() or "
                "abort_turn() before stop()"
            )
        adapter_state = await self.control.adapter_session.stop()
        self.control.closed = "stopped"
        state: dict[str, Any] = {
            "version": STATE_VERSION,
            "kind": "stopped-session",
            "harness_id": self.harness_id,
            "session_id": self.session_id,
            "adapter": dict(adapter_state),
        }
        signer = self.agent.config.state_signer
        return signer.sign(state) if signer is not None else state

    async def destroy(self) -> None:
        """Release everything the session holds in the runtime. Idempotent.

        An unfinished turn is aborted first. The sandbox belongs to the caller and is not
        stopped; processes host tools spawned through the session's sandbox view are killed.
        """
        if self.control.closed == "destroyed":
            return
        if self.control.active is not None and not self.control.active.done:
            self.control.active.abort("the session was destroyed")
        turn, self.control.turn = self.control.turn, None
        self.control.closed = "destroyed"
        self.control.state = TurnState.IDLE
        if turn is not None:
            try:
                await turn.adapter_turn.abort()
            except Exception:
                logger.exception("harness %r: aborting the turn of session %s failed", self.harness_id,
                                 self.session_id)
        try:
            await self.control.adapter_session.destroy()
        finally:
            if self.control.settings.sandbox is not None:
                await kill_spawned(self.control.settings.sandbox)

    def compact(self) -> StreamResult:
        """Compact the runtime's context now, as a turn whose parts include ``compaction``.

        Returns:
            A :class:`~harness_core.agent.results.StreamResult` (consume it like any other).

        Raises:
            TurnStateError: a turn is unfinished or the session is closed.
            HarnessCapabilityUnsupportedError: (when consumed) the runtime cannot compact.
        """
        return self.agent.compact(session=self)

    async def __aenter__(self) -> HarnessSession:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.destroy()
