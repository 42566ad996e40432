"""``HarnessSession.steer_turn``: the checks around an adapter turn's ``steer``
(:mod:`harness_core.steering`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from harness_core.agent.turn_state import TurnState
from harness_core.capabilities import Capability
from harness_core.errors import HarnessCapabilityUnsupportedError, TurnStateError
from harness_core.steering import SteerableTurn, check_steering_text

if TYPE_CHECKING:
    from harness_core.agent.session import HarnessSession

__all__ = ["steer_turn"]

logger = logging.getLogger("harness_core")

_STEERABLE = (TurnState.RUNNING, TurnState.AWAITING_APPROVAL, TurnState.AWAITING_TOOL_RESULT, TurnState.STOPPED)


async def steer_turn(session: HarnessSession, text: object) -> None:
    """Hand ``text`` to the runtime's running turn (see ``HarnessSession.steer_turn``).

    Raises:
        HarnessCapabilityUnsupportedError: the adapter lacks ``steering`` (declared or in fact).
        TurnStateError: the session is closed or has no turn in this process.
        TypeError / ValueError: ``text`` is not a non-empty string.
    """
    message = check_steering_text(text)
    session.agent.capabilities.require(Capability.STEERING, "steer_turn()")
    session.check_open()
    control = session.control
    turn = control.turn
    if turn is None or control.state not in _STEERABLE:
        raise TurnStateError(f"session {session.session_id!r} has no running turn to steer "
                             f"(state: {control.state.value})")
    adapter_turn = turn.adapter_turn
    if not isinstance(adapter_turn, SteerableTurn):
        raise HarnessCapabilityUnsupportedError(session.harness_id, "steering (steer_turn())",
                                                "the adapter's turn has no steer() method")
    logger.debug("harness %r: steering the turn of session %s (%d characters)", session.harness_id,
                 session.session_id, len(message))
    await adapter_turn.steer(message)
