"""Optional :class:`~harness_core.adapter.AdapterTurn` capabilities beyond
:class:`~harness_core.adapter.PendingRequestsTurn`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["EachAnswerTurn", "acts_on_each_answer"]


@runtime_checkable
class EachAnswerTurn(Protocol):
    """Optional :class:`~harness_core.adapter.AdapterTurn` capability: the runtime acts on
    each answer as it arrives.

    With ``acts_on_each_answer`` True, when a continuation answers some of the turn's
    pending :class:`~harness_core.adapter.BuiltinApprovalRequest` events and others stay
    undecided, the agent reads the turn's events on after submitting the answers, until
    the next :class:`~harness_core.adapter.AwaitingAnswers`: an approved built-in runs at
    once and its result part is in the same result slice. The turn **must** then emit
    ``AwaitingAnswers`` again once it is blocked on the remaining decisions (otherwise the
    slice never ends). Without the attribute the agent ends such a slice at once, as it
    does for a runtime that only resumes once every request is answered.

    Attributes:
        acts_on_each_answer: True to be read on after a partial answer.
    """

    acts_on_each_answer: bool


def acts_on_each_answer(turn: object) -> bool:
    """True when ``turn`` has the :class:`EachAnswerTurn` capability switched on."""
    return isinstance(turn, EachAnswerTurn) and turn.acts_on_each_answer is True
