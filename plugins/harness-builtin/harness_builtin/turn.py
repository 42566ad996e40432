"""One turn of the built-in harness: the model loop.

prompt → model → tool calls → validate → filter → approve → execute → results → model,
until the model answers without tool calls or a limit is reached. The turn is an
:class:`~harness_core.adapter.AdapterTurn`: its :meth:`BuiltinTurn.events` stream carries
stream parts (text and reasoning deltas, tool input, built-in calls and results,
``fileChange`` and ``compaction`` parts, step boundaries) and the control events the agent
answers (:class:`~harness_core.adapter.BuiltinApprovalRequest`,
:class:`~harness_core.adapter.HostToolCall`, :class:`~harness_core.adapter.AwaitingAnswers`,
and a final :class:`~harness_core.adapter.TurnEnd`).

The turn composes its steps: :class:`~harness_builtin.model_step.ModelStep` (one model
call), :class:`~harness_builtin.tool_step.ToolStep` (the calls it asked for) and
:class:`~harness_builtin.compaction_step.Compactor`, over the session's
:class:`~harness_builtin.live.LiveConversation` and
:class:`~harness_builtin.offer.ToolOffer`. Every blocking await runs in a cancel scope
:meth:`BuiltinTurn.abort` cancels (:class:`~harness_builtin.signals.TurnSignals`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable

from harness_core import PendingRequest, ToolOutput, TurnStateError

from .call_parts import pending_requests
from .compaction_step import Compactor
from .conversation import AssistantMessage, UserMessage
from .ending import limit_end, turn_end
from .environment import TurnEnvironment
from .events import EventStream
from .execution import BuiltinToolFailure
from .live import LiveConversation
from .model_step import ModelStep, StepResult
from .models.base import ModelError
from .offer import ToolOffer
from .rich_results import record_output
from .signals import Aborted, TurnSignals
from .streaming import ResponseStreamer
from .tool_step import ToolStep

__all__ = ["BuiltinTurn"]


class _EndTurn(Exception):
    """Raised inside the loop to end the turn with these events (the last a ``TurnEnd``)."""

    def __init__(self, events: list[object]) -> None:
        super().__init__("end of turn")
        self.events = events


def _answered(end: list[object]) -> bool:
    """The step ended the turn with the model's answer (a lone ``TurnEnd`` with ``stop``)."""
    return len(end) == 1 and getattr(end[0], "finish_reason", None) == "stop"


class BuiltinTurn:
    """A running turn of a :class:`~harness_builtin.session.BuiltinSession`.

    Built by the session (``prompt``, ``resume_turn``, ``compact``); not constructed
    directly.

    Args:
        conversation: the session's live conversation.
        offer: the session's tools and system prompt.
        environment: the model client, workspace and limits.
        on_done: called with the turn once it is over (ended, aborted or suspended).
        prompt: the user's prompt (None: continue the pending step).
        compact_only: only compact the conversation (``session.compact()``).
    """

    def __init__(
        self,
        *,
        conversation: LiveConversation,
        offer: ToolOffer,
        environment: TurnEnvironment,
        on_done: Callable[[BuiltinTurn], None],
        prompt: str | None = None,
        compact_only: bool = False,
    ) -> None:
        self._conversation = conversation
        self._limits = environment.limits
        self._client = environment.client
        self._on_done = on_done
        self._prompt = prompt
        self._compact_only = compact_only
        self._signals = TurnSignals()
        streamer = ResponseStreamer(environment.client, self._signals)
        self._model = ModelStep(conversation, offer, environment, streamer)
        self._tools = ToolStep(conversation, offer, environment, self._signals)
        self._compactor = Compactor(conversation, offer, environment.limits, streamer)
        self._stream = EventStream(self._run(), self._signals, lambda: conversation.counters.usage)
        self._suspended = False
        self._history_start: int | None = None
        self._steering: list[str] = []
        self._over = False

    acts_on_each_answer = True
    """An approved call runs at once, whatever the other pending decisions
    (:class:`harness_core.EachAnswerTurn`)."""

    # -- the AdapterTurn protocol -------------------------------------------------------

    def events(self) -> AsyncIterator[object]:
        """The turn's events (the same iterator on every call); ends with one ``TurnEnd``."""
        return self._stream

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`~harness_core.adapter.HostToolCall`.

        Raises:
            KeyError: no host call with this id waits for a result.
        """
        call = self._conversation.find_call(
            lambda c: c.call_id == tool_call_id and c.kind == "host" and c.status == "waiting"
        )
        if call is None:
            raise KeyError(f"no host tool call {tool_call_id!r} is waiting for a result in this turn")
        call.status = "done"
        record_output(call, output, self._client)
        call.reported = True
        self._signals.wake()

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`~harness_core.adapter.BuiltinApprovalRequest`; a denial's
        reason reaches the model.

        Raises:
            KeyError: no call waits for this approval id.
        """
        call = self._conversation.find_call(lambda c: c.approval_id == approval_id and c.status == "approval")
        if call is None:
            raise KeyError(f"no built-in call waits for approval {approval_id!r} in this turn")
        call.status = "approved" if approved else "denied"
        call.reason = reason
        self._signals.wake()

    def pending_requests(self) -> list[PendingRequest]:
        """The calls of the pending step this runtime waits on (the
        :class:`~harness_core.PendingRequestsTurn` capability): read from the step the
        turn will run, so the core can check an approval against it."""
        pending = self._conversation.pending
        return [] if pending is None else pending_requests(pending.calls)

    async def steer(self, text: str) -> None:
        """Steering (:class:`~harness_core.SteerableTurn`): ``text`` becomes a user message at
        the next step boundary, before the next model call; after the model's last step the
        turn takes one more step for it.

        Raises:
            TurnStateError: the turn is over.
        """
        if self._over:
            raise TurnStateError("the built-in turn is over; send a new prompt instead of steering it")
        self._steering.append(text)

    async def abort(self) -> None:
        """Stop the turn now: a running model call or command is cancelled (its process
        group killed); reading the events then yields ``TurnEnd(finish_reason="aborted")``."""
        self._signals.abort()
        if not self._stream.running:
            await self._stream.close()
            # A loop that never started has no finally block to run: settle the session here.
            self._conversation.close_pending("Not run: the turn was aborted.")
            self._on_done(self)

    async def suspend(self) -> None:
        """Detach from the session without settling its pending step (``suspend_turn``):
        the loop is closed and the unanswered calls stay pending."""
        self._suspended = True
        await self._stream.close()

    # -- the loop -----------------------------------------------------------------------

    async def _run(self) -> AsyncGenerator[object, None]:
        conversation = self._conversation
        try:
            try:
                async for event in self._loop():
                    yield event
            except _EndTurn as stop:
                for event in stop.events:
                    yield event
            except Aborted:
                conversation.close_pending("Not run: the turn was aborted.")
                yield turn_end(conversation.counters, "aborted")
            except ModelError as exc:
                conversation.close_pending("Not run: the model call failed.")
                self._forget_unanswered_prompt()
                yield turn_end(conversation.counters, "error", str(exc), exc.error_type)
            except BuiltinToolFailure as exc:
                conversation.close_pending(f"Not run: {exc}")
                yield turn_end(conversation.counters, "error", str(exc), "tool-error")
        finally:
            self._over = True
            if not self._suspended:
                conversation.close_pending(
                    "Not run: the turn was aborted." if self._signals.aborted
                    else "Not run: the turn ended before this call ran."
                )
            self._on_done(self)

    async def _loop(self) -> AsyncIterator[object]:
        conversation = self._conversation
        if self._compact_only:
            async for event in self._compactor.compact("manual"):
                yield event
            yield turn_end(conversation.counters, "stop")
            return
        if self._prompt is not None:
            self._history_start = len(conversation.messages)
            conversation.append(UserMessage(text=self._prompt))
        if conversation.pending is not None:
            async for event in self._tools.run():
                yield event
        while True:
            self._deliver_steering()
            self._check_limits()
            if self._compactor.needed():
                async for event in self._compactor.compact("auto"):
                    yield event
            step = StepResult()
            async for event in self._model.run(step):
                yield event
            if step.end is not None:
                if self._steering and _answered(step.end):
                    continue  # a steering message came during the last step: one more step for it
                for event in step.end:
                    yield event
                return
            if conversation.pending is not None:
                self._tools.remember(step.validated)
                async for event in self._tools.run():
                    yield event

    def _deliver_steering(self) -> None:
        """The step boundary: queued steering messages join the conversation as user messages."""
        while self._steering:
            self._conversation.append(UserMessage(text=self._steering.pop(0)))

    def _forget_unanswered_prompt(self) -> None:
        """A turn whose first model call failed leaves no trace: its prompt is dropped, so
        the next prompt does not follow an unanswered one."""
        start = self._history_start
        messages = self._conversation.messages
        if start is not None and not any(isinstance(m, AssistantMessage) for m in messages[start:]):
            self._conversation.truncate(start)

    def _check_limits(self) -> None:
        limits = self._limits
        counters = self._conversation.counters
        if counters.steps >= limits.max_steps:
            raise _EndTurn(limit_end(
                counters,
                f"the turn stopped after {counters.steps} model calls: it reached max_steps={limits.max_steps}; "
                "send another prompt to go on, or raise max_steps",
                "max-steps",
            ))
        if limits.max_turn_tokens is not None and counters.tokens >= limits.max_turn_tokens:
            raise _EndTurn(limit_end(
                counters,
                f"the turn stopped after using {counters.tokens} tokens: it reached "
                f"max_turn_tokens={limits.max_turn_tokens}; send another prompt to go on, or raise max_turn_tokens",
                "max-turn-tokens",
            ))
