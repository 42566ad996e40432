"""Steering: adding a user message to a running turn (``session.steer_turn(text)``).

An adapter that supports steering declares ``Capability.STEERING`` and gives its turns a
``steer`` method (:class:`SteerableTurn`). The core checks both before calling it, so a
runtime without steering refuses with
:class:`~harness_core.errors.HarnessCapabilityUnsupportedError` and the adapter's reason.

When the message reaches the model is the runtime's choice, documented per adapter: the
built-in harness at the next step boundary (before its next model call), Claude Code
through its streaming input, Codex with ``turn/steer``, pi with its ``steer`` command. A
message that arrives after the model's last step makes the turn take one more step where
the runtime allows it (built-in harness, pi; Claude Code spans the CLI turn answering it);
otherwise it is delivered as documented. While the turn waits for answers the core holds
the message and delivers it when the turn continues, after a suspension too
(:mod:`harness_core.agent.steer`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["SteerableTurn", "check_steering_text"]

MAX_STEERING_CHARS = 100_000
"""The longest steering message accepted (characters)."""


@runtime_checkable
class SteerableTurn(Protocol):
    """Optional :class:`~harness_core.adapter.AdapterTurn` capability: steering."""

    async def steer(self, text: str) -> None:
        """Add the user message ``text`` to this running turn.

        Raises:
            TurnStateError: the turn is over (nothing to add the message to).
            HarnessCapabilityUnsupportedError: the runtime refused it.
        """
        ...


def check_steering_text(text: object) -> str:
    """``text`` as a steering message.

    Raises:
        TypeError: not a string.
        ValueError: empty (or only whitespace), or longer than :data:`MAX_STEERING_CHARS`.
    """
    if not isinstance(text, str):
        raise TypeError(f"a steering message is a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("a steering message cannot be empty")
    if len(text) > MAX_STEERING_CHARS:
        raise ValueError(f"a steering message is at most {MAX_STEERING_CHARS} characters, got {len(text)}")
    return text
