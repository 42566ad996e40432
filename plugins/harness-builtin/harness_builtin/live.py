"""The live conversation state of a built-in session.

:class:`LiveConversation` holds what a turn reads and changes: the message history, the
pending step (tool calls not all answered yet), the current turn's counters, the context
size the model last reported, and the number of compactions. The history only changes
through its methods, so it keeps a running character total and estimates the context size
without rescanning the history (see :func:`~harness_builtin.conversation.estimate_tokens`).
It round-trips through :class:`~harness_builtin.state.SessionState` (``stop()`` /
``suspend_turn()`` JSON).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from harness_core import Usage

from .conversation import (
    Message,
    ResultItem,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
    message_size,
)
from .state import CallState, PendingStep, SessionState, TurnCounters

__all__ = ["LiveConversation"]


class LiveConversation:
    """The history, the pending step and the turn counters of one session.

    Attributes:
        context_tokens: input plus output tokens of the last model response (0 after a
            compaction); the compaction check takes the larger of this and the estimate.
    """

    def __init__(self, messages: Iterable[Message] = (), *, compactions: int = 0,
                 pending: PendingStep | None = None, counters: TurnCounters | None = None) -> None:
        self._messages: list[Message] = []
        self._chars = 0
        self._pending = pending
        self._counters = counters or TurnCounters()
        self._compactions = compactions
        self.context_tokens = 0
        for message in messages:
            self.append(message)

    @classmethod
    def from_state(cls, state: SessionState, *, continuing: bool) -> LiveConversation:
        """The conversation restored from ``state``. When ``continuing``, its pending step
        and counters are kept (the turn goes on); otherwise a pending step's unanswered
        calls get "not run" results."""
        if continuing and state.pending is not None:
            return cls(state.messages, compactions=state.compactions, pending=state.pending,
                       counters=state.counters)
        conversation = cls(state.messages, compactions=state.compactions, pending=state.pending)
        conversation.close_pending("Not run: the session was resumed without continuing its turn.")
        return conversation

    def to_state(self, *, with_pending: bool) -> SessionState:
        """The state for ``continue_from`` (``with_pending``) or ``resume_from``."""
        return SessionState(
            messages=list(self._messages),
            pending=self._pending if with_pending else None,
            counters=self._counters if with_pending else None,
            compactions=self._compactions,
        )

    # -- the history ---------------------------------------------------------------------

    @property
    def messages(self) -> Sequence[Message]:
        """The history (a live read-only view; copy it to keep it)."""
        return self._messages

    @property
    def compactions(self) -> int:
        """How many times the history was compacted."""
        return self._compactions

    def append(self, message: Message) -> None:
        """Add a message at the end."""
        self._messages.append(message)
        self._chars += message_size(message)

    def truncate(self, length: int) -> None:
        """Drop the messages from position ``length`` on."""
        for message in self._messages[length:]:
            self._chars -= message_size(message)
        del self._messages[length:]

    def compacted(self, summary: UserMessage, kept: Sequence[Message]) -> None:
        """Replace the history with ``summary`` then ``kept``; the model's last context
        size no longer applies."""
        self._messages = []
        self._chars = 0
        for message in (summary, *kept):
            self.append(message)
        self.context_tokens = 0
        self._compactions += 1

    def estimate(self, system: str = "") -> int:
        """:func:`~harness_builtin.conversation.estimate_tokens` of the history with
        ``system``, from the running total (constant time)."""
        return (len(system) + self._chars) // 4 + 1

    # -- the pending step ----------------------------------------------------------------

    @property
    def pending(self) -> PendingStep | None:
        """The step whose calls are not all answered, or None."""
        return self._pending

    def begin_step(self, pending: PendingStep) -> None:
        """Make ``pending`` the unanswered step (its assistant message is in the history)."""
        self._pending = pending

    def find_call(self, predicate: Callable[[CallState], bool]) -> CallState | None:
        """The first call of the pending step that matches, or None."""
        if self._pending is None:
            return None
        return next((call for call in self._pending.calls if predicate(call)), None)

    def finish_step(self) -> PendingStep:
        """Record the pending step's results (every call answered) and drop the step.

        Raises:
            RuntimeError: there is no pending step.
        """
        pending = self._pending
        if pending is None:
            raise RuntimeError("the built-in session has no pending step to finish")
        self._pending = None
        self.append(ToolResultsMessage(results=tuple(
            ToolResultRecord(call_id=c.call_id, name=c.name, content=c.content or "", is_error=c.is_error,
                             items=tuple(ResultItem.model_validate(i) for i in c.items or ()))
            for c in pending.calls
        )))
        return pending

    def close_pending(self, reason: str) -> None:
        """Give every unanswered call of the pending step a result (``reason``, an error),
        so the history stays valid (every call followed by its result), and drop the step."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self.append(ToolResultsMessage(results=tuple(
            ToolResultRecord(
                call_id=c.call_id, name=c.name,
                content=c.content if c.content is not None else reason or "Not run.",
                is_error=c.is_error if c.content is not None else True,
            )
            for c in pending.calls
        )))

    # -- the turn's counters -------------------------------------------------------------

    @property
    def counters(self) -> TurnCounters:
        """What the current turn used so far (mutable; limits are checked against it)."""
        return self._counters

    def reset_counters(self) -> None:
        """Start counting a new turn."""
        self._counters = TurnCounters()

    def add_usage(self, usage: Usage) -> None:
        """Count a model response's usage in the turn's usage and token total."""
        counters = self._counters
        counters.usage = counters.usage + usage
        counters.tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)
