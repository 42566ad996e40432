"""How a built-in turn ends: its :class:`~harness_core.adapter.TurnEnd` event."""

from __future__ import annotations

from harness_core import ErrorPart, FinishReason, TurnEnd

from .state import TurnCounters

__all__ = ["limit_end", "turn_end"]


def turn_end(counters: TurnCounters, finish_reason: FinishReason, error: str | None = None,
             error_type: str | None = None) -> TurnEnd:
    """The turn's ``TurnEnd`` with the usage counted so far."""
    return TurnEnd(finish_reason=finish_reason, usage=counters.usage, error=error, error_type=error_type)


def limit_end(counters: TurnCounters, message: str, kind: str) -> list[object]:
    """A limit ends the turn with finish reason ``length``, after an ``error`` part that
    names the limit (``error_type=kind``, e.g. ``max-steps``) so it is never silent."""
    return [ErrorPart(error=message, error_type=kind), turn_end(counters, "length")]
