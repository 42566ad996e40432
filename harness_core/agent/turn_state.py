"""Turn states of a session.

A session's turn moves through :class:`TurnState`::

    idle --stream(prompt)--> running --+--> idle (finished, failed or aborted)
                                       +--> awaiting-approval    --continue--> running
                                       +--> awaiting-tool-result --continue--> running
    awaiting-* --suspend_turn()--> suspended   (continue it with create_session(continue_from=...))
    running --a stop_when condition matched--> stopped --continue_stream()--> running
"""

from __future__ import annotations

import enum

__all__ = ["TurnState"]


class TurnState(enum.StrEnum):
    """Where a session's current turn stands."""

    IDLE = "idle"
    RUNNING = "running"
    AWAITING_APPROVAL = "awaiting-approval"
    AWAITING_TOOL_RESULT = "awaiting-tool-result"
    SUSPENDED = "suspended"
    STOPPED = "stopped"
    """A ``stop_when`` condition ended the slice after a step; the turn is unfinished
    (:mod:`harness_core.agent.stop`) and continues with ``continue_stream()`` in this process."""

    @property
    def paused(self) -> bool:
        """True for ``awaiting-approval`` and ``awaiting-tool-result``."""
        return self in (TurnState.AWAITING_APPROVAL, TurnState.AWAITING_TOOL_RESULT)
