"""Steering a Claude Code turn: which CLI turns a harness turn spans.

``session.steer_turn(text)`` writes a user message to the CLI's streaming input. While the
model is still going to make a request, Claude Code adds the message to the running turn.
A message that arrives after the model's last request (while the final answer streams,
say) is queued by the CLI and answered by **a CLI turn of its own**, with its own
``ResultMessage``. Left alone, that turn's messages would be read as the next prompt's, and
every later prompt would get the answer of the one before.

So every message the adapter writes carries a ``uuid`` (the prompt's too), and each
``ResultMessage`` lists the ``user_message_uuids`` its CLI turn took in (CLI 2.1.332;
``claude-agent-sdk``'s ``ResultMessage.user_message_uuids``). When a result leaves a
steering message untaken, the harness turn does not end there: it reads on through the
CLI turn that answers the steer, whose steps become further steps of the same harness turn,
and ends at the result that took the last steering message in. Its ``TurnEnd`` carries the
usage and cost of every CLI turn it spanned. A result that lists no uuid at all (an older
CLI, a slash command) is taken to have taken everything in, as before.
"""

from __future__ import annotations

import uuid
from typing import Any

import attrs

from harness_core import TurnEnd, Usage

__all__ = ["SteeringLedger"]


class SteeringLedger:
    """The steering messages of one turn the CLI has not taken in yet, and the usage of
    the CLI turns the harness turn already spanned."""

    def __init__(self) -> None:
        self._outstanding: set[str] = set()
        self._carried: Usage | None = None

    @staticmethod
    def message_id() -> str:
        """A fresh ``uuid`` for a user message (the CLI skips a uuid it has seen)."""
        return str(uuid.uuid4())

    def sent(self, message_id: str) -> None:
        """A steering message with ``message_id`` is being written to the CLI."""
        self._outstanding.add(message_id)

    def not_sent(self, message_id: str) -> None:
        """Writing it failed: the CLI never got it."""
        self._outstanding.discard(message_id)

    def another_turn_follows(self, result: Any) -> bool:
        """After ``result`` (a ``ResultMessage``): True when the CLI still holds a steering
        message of this turn, so it runs another CLI turn for it next."""
        taken = set(result.user_message_uuids or ())
        if result.user_message_uuid is not None:
            taken.add(result.user_message_uuid)
        if not taken:  # the CLI does not say: as before, the turn ends here
            self._outstanding.clear()
        self._outstanding -= taken
        return bool(self._outstanding)

    def carry(self, end: TurnEnd) -> None:
        """Keep the usage of a CLI turn the harness turn goes on after."""
        self._carried = end.usage if self._carried is None else self._carried + end.usage

    def total(self, end: TurnEnd) -> TurnEnd:
        """``end`` with the usage of the CLI turns carried before it added."""
        if self._carried is None:
            return end
        return attrs.evolve(end, usage=self._carried + end.usage)
