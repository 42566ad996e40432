"""``HarnessSession.steer_turn``: the checks around an adapter turn's ``steer``
(:mod:`harness_core.steering`).

While the turn is paused (``awaiting-approval`` / ``awaiting-tool-result``) the core holds
the message instead (``TurnRecord.held_steering``): ``suspend_turn()`` writes held messages
into the suspended state (``"steering"``), and the next continuation, in this session or in
one opened with ``continue_from``, gives them to the adapter turn before its answers
(:func:`deliver_held_steering`). A message the continued turn refuses becomes an ``error``
part (``error_type="steering-undelivered"``) and a warning: never silently dropped.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from harness_core.agent.turn_state import TurnState
from harness_core.capabilities import Capability
from harness_core.errors import HarnessCapabilityUnsupportedError, TurnStateError
from harness_core.parts.models import ErrorPart
from harness_core.steering import SteerableTurn, check_steering_text

if TYPE_CHECKING:
    from harness_core.agent.session import HarnessSession
    from harness_core.agent.turn_record import TurnRecord

__all__ = ["deliver_held_steering", "steer_turn"]

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
    if control.state.paused:  # held until the turn continues (here, or after suspend_turn())
        turn.held_steering.append(message)
        return
    logger.debug("harness %r: steering the turn of session %s (%d characters)", session.harness_id,
                 session.session_id, len(message))
    await adapter_turn.steer(message)


async def deliver_held_steering(turn: TurnRecord, harness_id: str) -> list[ErrorPart]:
    """Give ``turn``'s held steering messages to its adapter turn (a continuation starts).

    Returns:
        An ``error`` part (``steering-undelivered``) for each message the adapter refused.
    """
    refused: list[ErrorPart] = []
    while turn.held_steering:
        message = turn.held_steering.pop(0)
        adapter_turn = turn.adapter_turn
        try:
            if not isinstance(adapter_turn, SteerableTurn):
                raise HarnessCapabilityUnsupportedError(harness_id, "steering (steer_turn())",
                                                        "the continued turn has no steer() method")
            await adapter_turn.steer(message)
        except Exception as exc:  # refused, or the continued runtime failed: say so, go on
            logger.warning("harness %r: a held steering message (%d characters) was not delivered: %s",
                           harness_id, len(message), exc)
            refused.append(ErrorPart(error=f"a steering message accepted while the turn waited could not be "
                                           f"delivered to the continued turn: {exc}",
                                     error_type="steering-undelivered"))
    return refused
