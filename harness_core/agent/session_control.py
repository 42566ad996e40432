"""The mutable turn state of one session, shared by the session, the agent and the runner.

:class:`~harness_core.agent.session.HarnessSession` owns one :class:`SessionControl` and
exposes it read-only through its properties; the agent and the turn runner receive it
explicitly (composition, no private members). Nothing else should write to it.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from harness_core.adapter import AdapterSession
from harness_core.agent.call_settings import CallSettings
from harness_core.agent.features import TurnFeatures
from harness_core.agent.turn_record import TurnRecord
from harness_core.agent.turn_state import TurnState

__all__ = ["ActiveSlice", "SessionControl"]


class ActiveSlice(Protocol):
    """What the session needs of the result slice being streamed (a ``StreamResult``)."""

    @property
    def done(self) -> bool: ...

    def abort(self, reason: str | None = None) -> None: ...


@attrs.define(kw_only=True)
class SessionControl:
    """Live state of one session.

    Attributes:
        adapter_session: the adapter's session.
        settings: the session's call settings (frozen).
        state: the turn state.
        turn: the unfinished turn, or ``None``.
        active: the result slice being streamed, or ``None``.
        closed: ``"stopped"`` or ``"destroyed"`` once closed, else ``None``.
        violations: adapter contract violations seen in this session (see
            :mod:`harness_core.agent.emitter`).
        features: the current turn's structured output, stop conditions and mode
            (:mod:`harness_core.agent.features`), or ``None``.
        shown: while a slice streams, the state its consumer has been told so far, which
            :attr:`HarnessSession.state <harness_core.agent.session.HarnessSession.state>`
            reports: the state before the slice until the consumer reads ``start``, then
            ``running``; ``None`` (the real :attr:`state`) from the moment the consumer
            receives ``finish`` or ``abort``, or once the slice's stream is closed.
    """

    adapter_session: AdapterSession
    settings: CallSettings
    state: TurnState = TurnState.IDLE
    turn: TurnRecord | None = None
    active: ActiveSlice | None = None
    closed: str | None = None
    violations: list[str] = attrs.field(factory=list)
    shown: TurnState | None = None
    features: TurnFeatures | None = None
    trace_parent: str | None = None
    """The ``traceparent`` of a continued suspended turn (telemetry), read once by its first slice."""

    @property
    def visible_state(self) -> TurnState:
        """The state as the consumer of the stream knows it (:attr:`shown`, else :attr:`state`)."""
        return self.shown if self.shown is not None else self.state

    def end_turn(self) -> None:
        """The turn is over (finished, failed or aborted): the session is idle again."""
        self.turn = None
        self.state = TurnState.IDLE
