"""The unfinished turn of a session, kept across result slices (internal to the agent)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import attrs

from harness_core.adapter import AdapterTurn
from harness_core.agent.state import DecidedCall, PendingApprovalState, PendingToolCallState
from harness_core.agent.turn_state import TurnState
from harness_core.hook_contexts import ProjectionContext

__all__ = ["TurnRecord"]


@attrs.define(kw_only=True)
class TurnRecord:
    """One turn of a session, from its first slice to its ``finish``.

    Attributes:
        adapter_turn: the adapter's turn handle.
        projection: the per-turn projection context.
        pending_approvals: approval id -> call waiting for a person.
        pending_results: call id -> client-side call waiting for its result.
        decided: call id -> decision already taken in this turn.
        announced: call id -> who emitted its ``tool-call`` part (``"adapter"`` or ``"core"``).
        finished: call ids whose final result part was emitted.
        held_steering: steering messages accepted while the turn was paused; the core
            holds them (they travel in suspended state) and gives them to the adapter turn
            when the turn continues (:mod:`harness_core.agent.steer`).
    """

    adapter_turn: AdapterTurn
    projection: ProjectionContext
    pending_approvals: dict[str, PendingApprovalState] = attrs.field(factory=dict)
    pending_results: dict[str, PendingToolCallState] = attrs.field(factory=dict)
    decided: dict[str, DecidedCall] = attrs.field(factory=dict)
    announced: dict[str, str] = attrs.field(factory=dict)
    finished: set[str] = attrs.field(factory=set)
    held_steering: list[str] = attrs.field(factory=list)
    events_iterator: AsyncIterator[object] | None = None

    def events(self) -> AsyncIterator[object]:
        """The adapter turn's event iterator, created once and read across slices."""
        if self.events_iterator is None:
            self.events_iterator = aiter(self.adapter_turn.events())
        return self.events_iterator

    def waiting_for_user(self) -> bool:
        """True while an approval or a client-side result is outstanding."""
        return bool(self.pending_approvals or self.pending_results)

    def pause_state(self) -> TurnState:
        """``awaiting-approval`` while any approval is pending, else ``awaiting-tool-result``."""
        return TurnState.AWAITING_APPROVAL if self.pending_approvals else TurnState.AWAITING_TOOL_RESULT
