"""One turn of the built-in harness: the model loop.

prompt → model → tool calls → validate → filter → approve → execute → results → model,
until the model answers without tool calls or a limit is reached. The turn is an
:class:`~harness_core.adapter.AdapterTurn`: its :meth:`BuiltinTurn.events` stream carries
stream parts (text and reasoning deltas, tool input, built-in calls and results,
``fileChange`` and ``compaction`` parts, step boundaries) and the control events the agent
answers (:class:`~harness_core.adapter.BuiltinApprovalRequest`,
:class:`~harness_core.adapter.HostToolCall`, :class:`~harness_core.adapter.AwaitingAnswers`,
and a final :class:`~harness_core.adapter.TurnEnd`).

Every await that may block (a model stream read, a tool batch, a wait for answers) runs in
its own cancel scope that :meth:`BuiltinTurn.abort` cancels; no cancel scope is ever held
across a ``yield``, so the event iterator may be read from different tasks one after the
other (one result slice, then the next).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import attrs

from harness_core import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    AwaitingAnswers,
    BuiltinApprovalRequest,
    ErrorPart,
    FinishReason,
    FinishStepPart,
    HostToolCall,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCall,
    ToolCallPart,
    ToolContext,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolOutput,
    ToolOutputDeniedPart,
    ToolResultPart,
    TurnEnd,
    Usage,
)

from .compaction import SUMMARY_PREFIX, split_for_compaction, summary_request
from .conversation import (
    AssistantMessage,
    ReasoningBlock,
    ToolCallRecord,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
    estimate_tokens,
)
from .execution import BuiltinToolFailure, ScheduledCall, execute_builtin, run_batch
from .file_changes import diff, snapshot
from .models.base import (
    ModelError,
    ModelRequest,
    ReasoningDelta,
    ReasoningDone,
    ResponseDone,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSpec,
)
from .repair import CallProblem, RawCall, check_call, repair_note
from .state import CallState, PendingStep
from .tools import BUILTIN_KINDS, SETTINGS_KEY, WORKSPACE_KEY

if TYPE_CHECKING:
    from .session import BuiltinSession

__all__ = ["BuiltinTurn"]

HARNESS_ID = "builtin"
_T = TypeVar("_T")
_WITHHELD = "[my previous response had tool calls that could not be used; they were not run]"


class _Aborted(Exception):
    """Raised inside the loop when :meth:`BuiltinTurn.abort` cancelled a blocking await."""


class _EndTurn(Exception):
    """Raised inside the loop to end the turn with these events (the last a :class:`TurnEnd`)."""

    def __init__(self, events: list[object]) -> None:
        super().__init__("end of turn")
        self.events = events


@attrs.define
class _Response:
    """One model response as it streamed in."""

    text: str = ""
    reasoning: list[ReasoningBlock] = attrs.Factory(list)
    calls: list[RawCall] = attrs.Factory(list)
    done: ResponseDone | None = None


class _EventStream:
    """The turn's event iterator. After :meth:`BuiltinTurn.abort` closed it, reading it
    yields ``TurnEnd(finish_reason="aborted")`` once."""

    def __init__(self, turn: BuiltinTurn) -> None:
        self._turn = turn
        self._gen = turn._run()
        self._finished = False
        self._closed = False
        self.running = False

    def __aiter__(self) -> _EventStream:
        return self

    async def __anext__(self) -> object:
        if self._finished:
            raise StopAsyncIteration
        if self._turn._aborted and not self.running:
            await self.close()
        if self._closed:
            self._finished = True
            if self._turn._aborted:
                return TurnEnd(finish_reason="aborted", usage=self._turn._counters.usage)
            raise StopAsyncIteration
        self.running = True
        try:
            event = await self._gen.__anext__()
        except StopAsyncIteration:
            self._finished = True
            raise
        finally:
            self.running = False
        if isinstance(event, TurnEnd):
            self._finished = True
            await self._gen.aclose()
        return event

    async def close(self) -> None:
        """Close the loop (its ``finally`` blocks run) unless a read is in progress."""
        if not self.running and not self._closed:
            self._closed = True
            await self._gen.aclose()


class BuiltinTurn:
    """A running turn of a :class:`~harness_builtin.session.BuiltinSession`.

    Built by the session (``prompt``, ``resume_turn``, ``compact``); not constructed
    directly.
    """

    def __init__(self, session: BuiltinSession, *, prompt: str | None = None, compact_only: bool = False) -> None:
        self._session = session
        self._prompt = prompt
        self._compact_only = compact_only
        self._aborted = False
        self._scope: anyio.CancelScope | None = None
        self._wake = anyio.Event()
        self._ids = itertools.count()
        self._stream = _EventStream(self)
        self._suspended = False
        self._outcome: list[object] | None = None
        self._history_start: int | None = None
        self._validated: dict[str, Any] = {}

    # -- the AdapterTurn protocol -------------------------------------------------------

    def events(self) -> AsyncIterator[object]:
        """The turn's events (the same iterator on every call); ends with one ``TurnEnd``."""
        return self._stream

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`~harness_core.adapter.HostToolCall`.

        Raises:
            KeyError: no host call with this id waits for a result.
        """
        call = self._find(lambda c: c.kind == "host" and c.call_id == tool_call_id and c.status == "waiting")
        if call is None:
            raise KeyError(f"no host tool call {tool_call_id!r} is waiting for a result in this turn")
        call.status = "done"
        call.content = output.content
        call.is_error = output.is_error
        call.reported = True
        self._wake.set()

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`~harness_core.adapter.BuiltinApprovalRequest`; a denial's
        reason reaches the model.

        Raises:
            KeyError: no call waits for this approval id.
        """
        call = self._find(lambda c: c.approval_id == approval_id and c.status == "approval")
        if call is None:
            raise KeyError(f"no built-in call waits for approval {approval_id!r} in this turn")
        call.status = "approved" if approved else "denied"
        call.reason = reason
        self._wake.set()

    async def abort(self) -> None:
        """Stop the turn now: a running model call or command is cancelled (its process
        group killed); reading the events then yields ``TurnEnd(finish_reason="aborted")``."""
        self._aborted = True
        if self._scope is not None:
            self._scope.cancel()
        self._wake.set()
        if not self._stream.running:
            await self._stream.close()
            # A loop that never started has no finally block to run: settle the session here.
            self._session._close_pending("Not run: the turn was aborted.")
            self._session._turn_done(self)

    # -- helpers ------------------------------------------------------------------------

    @property
    def _counters(self) -> Any:
        return self._session._counters

    def _find(self, predicate: Callable[[CallState], bool]) -> CallState | None:
        pending = self._session._pending
        if pending is None:
            return None
        return next((call for call in pending.calls if predicate(call)), None)

    async def _guard(self, awaitable: Awaitable[_T]) -> _T:
        """Await ``awaitable`` in a cancel scope :meth:`abort` can cancel."""
        with anyio.CancelScope() as scope:
            self._scope = scope
            if self._aborted:
                scope.cancel()
            try:
                return await awaitable
            finally:
                self._scope = None
        raise _Aborted

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def _end(self, finish_reason: FinishReason, error: str | None = None, error_type: str | None = None) -> TurnEnd:
        return TurnEnd(finish_reason=finish_reason, usage=self._counters.usage, error=error, error_type=error_type)

    def _limit(self, message: str, kind: str) -> list[object]:
        """A limit ends the turn with finish reason ``length``, after an ``error`` part
        that names the limit (so it is never silent)."""
        return [ErrorPart(error=message, error_type=kind), self._end("length")]

    # -- the loop -----------------------------------------------------------------------

    async def _run(self) -> AsyncGenerator[object, None]:
        session = self._session
        try:
            try:
                if self._compact_only:
                    async for event in self._compact("manual"):
                        yield event
                    yield self._end("stop")
                    return
                if self._prompt is not None:
                    self._history_start = len(session._messages)
                    session._messages.append(UserMessage(text=self._prompt))
                if session._pending is not None:
                    async for event in self._finish_step():
                        yield event
                while True:
                    self._check_limits()
                    if self._needs_compaction():
                        async for event in self._compact("auto"):
                            yield event
                    async for event in self._model_step():
                        yield event
                    if self._outcome is not None:
                        for event in self._outcome:
                            yield event
                        return
                    if session._pending is not None:
                        async for event in self._finish_step():
                            yield event
            except _EndTurn as stop:
                for event in stop.events:
                    yield event
            except _Aborted:
                self._aborted = True
                session._close_pending("Not run: the turn was aborted.")
                yield self._end("aborted")
            except ModelError as exc:
                session._close_pending("Not run: the model call failed.")
                self._forget_unanswered_prompt()
                yield self._end("error", str(exc), exc.error_type)
            except BuiltinToolFailure as exc:
                session._close_pending(f"Not run: {exc}")
                yield self._end("error", str(exc), "tool-error")
        finally:
            if not self._suspended:
                session._close_pending(
                    "Not run: the turn was aborted." if self._aborted else "Not run: the turn ended before this call ran."
                )
            session._turn_done(self)

    def _forget_unanswered_prompt(self) -> None:
        """A turn whose first model call failed leaves no trace: its prompt is dropped, so
        the next prompt does not follow an unanswered one."""
        start = self._history_start
        messages = self._session._messages
        if start is not None and not any(isinstance(m, AssistantMessage) for m in messages[start:]):
            del messages[start:]

    def _check_limits(self) -> None:
        limits = self._session.limits
        counters = self._counters
        if counters.steps >= limits.max_steps:
            raise _EndTurn(self._limit(
                f"the turn stopped after {counters.steps} model calls: it reached max_steps={limits.max_steps}; "
                "send another prompt to go on, or raise max_steps",
                "max-steps",
            ))
        if limits.max_turn_tokens is not None and counters.tokens >= limits.max_turn_tokens:
            raise _EndTurn(self._limit(
                f"the turn stopped after using {counters.tokens} tokens: it reached "
                f"max_turn_tokens={limits.max_turn_tokens}; send another prompt to go on, or raise max_turn_tokens",
                "max-turn-tokens",
            ))

    def _needs_compaction(self) -> bool:
        threshold = self._session.limits.compact_threshold_tokens
        if threshold is None:
            return False
        session = self._session
        estimate = max(session._estimator.estimate(session._messages, session._system()), session._context_tokens)
        return estimate > threshold

    async def _compact(self, trigger: str) -> AsyncIterator[object]:
        session = self._session
        before = len(session._messages)
        tokens_before = estimate_tokens(session._messages, session._system())
        older, kept = split_for_compaction(session._messages, session.limits.compact_keep_messages)
        call_id = f"compaction-{session._state_compactions + 1}"
        call_input = {"trigger": trigger, "messagesBefore": before, "tokensBefore": tokens_before}
        yield ToolCallPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
                           provider_executed=True, dynamic=True)
        if not older:
            yield ToolResultPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
                                 output={"skipped": "nothing older than the recent messages to compact"},
                                 provider_executed=True, dynamic=True)
            return
        response = _Response()
        async for _ in self._stream_response(summary_request(older), response, emit=False):
            pass  # pragma: no cover - emit=False yields nothing
        if response.done is not None:
            self._add_usage(response.done.usage)
        summary = response.text.strip() or "(the model returned an empty summary)"
        session._messages[:] = [UserMessage(text=SUMMARY_PREFIX + summary, kind="summary"), *kept]
        session._context_tokens = 0
        session._state_compactions += 1
        yield ToolResultPart(
            tool_call_id=call_id, tool_name=COMPACTION_TOOL, input=call_input,
            output={"summary": summary, "messagesAfter": len(session._messages),
                    "tokensAfter": estimate_tokens(session._messages, session._system())},
            provider_executed=True, dynamic=True,
        )

    def _add_usage(self, usage: Usage) -> None:
        counters = self._counters
        counters.usage = counters.usage + usage
        counters.tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)

    async def _stream_response(self, request: ModelRequest, response: _Response, *, emit: bool,
                               builtin_names: frozenset[str] = frozenset()) -> AsyncIterator[Part]:
        """Read one model response into ``response``, yielding parts when ``emit``."""
        iterator = self._session.client.stream(request).__aiter__()
        text_id: str | None = None
        reasoning_id: str | None = None
        reasoning_text = ""
        arguments: dict[int, list[str]] = {}

        def close_text() -> list[Part]:
            nonlocal text_id
            if text_id is None:
                return []
            ended, text_id = text_id, None
            return [TextEndPart(id=ended)]

        def close_reasoning(signature: str | None = None, redacted: str | None = None) -> list[Part]:
            nonlocal reasoning_id, reasoning_text
            if reasoning_id is None and redacted is None:
                return []
            response.reasoning.append(ReasoningBlock(text=reasoning_text, signature=signature, redacted=redacted))
            reasoning_text = ""
            if reasoning_id is None:
                return []
            ended, reasoning_id = reasoning_id, None
            return [ReasoningEndPart(id=ended)]

        try:
            while True:
                try:
                    event = await self._guard(iterator.__anext__())
                except StopAsyncIteration:
                    break
                parts: list[Part] = []
                if isinstance(event, TextDelta):
                    parts.extend(close_reasoning())
                    response.text += event.text
                    if text_id is None:
                        text_id = self._new_id("text")
                        parts.append(TextStartPart(id=text_id))
                    parts.append(TextDeltaPart(id=text_id, text=event.text))
                elif isinstance(event, ReasoningDelta):
                    parts.extend(close_text())
                    reasoning_text += event.text
                    if reasoning_id is None:
                        reasoning_id = self._new_id("reasoning")
                        parts.append(ReasoningStartPart(id=reasoning_id))
                    parts.append(ReasoningDeltaPart(id=reasoning_id, text=event.text))
                elif isinstance(event, ReasoningDone):
                    parts.extend(close_reasoning(event.signature, event.redacted))
                elif isinstance(event, ToolCallStart):
                    parts.extend(close_text())
                    parts.extend(close_reasoning())
                    response.calls.append(RawCall(event.call_id, event.name, ""))
                    arguments[event.index] = []
                    parts.append(ToolInputStartPart(
                        id=event.call_id, tool_name=event.name,
                        provider_executed=True if event.name in builtin_names else None,
                    ))
                elif isinstance(event, ToolCallDelta):
                    if event.index in arguments:
                        arguments[event.index].append(event.delta)
                        parts.append(ToolInputDeltaPart(id=response.calls[event.index].call_id, delta=event.delta))
                elif isinstance(event, ResponseDone):
                    parts.extend(close_text())
                    parts.extend(close_reasoning())
                    response.done = event
                    for index, call in enumerate(response.calls):
                        response.calls[index] = attrs.evolve(call, arguments="".join(arguments.get(index, [])))
                        parts.append(ToolInputEndPart(id=call.call_id))
                if emit:
                    for part in parts:
                        yield part
        finally:
            with anyio.CancelScope(shield=True):
                aclose = getattr(iterator, "aclose", None)
                if aclose is not None:
                    await aclose()
        if response.done is None:
            raise ModelError("incomplete-response", f"model {self._session.client.name!r} ended its stream without finishing")

    def _offered_tools(self) -> list[ToolSpec]:
        session = self._session
        specs = [spec for name, spec in session._builtin_specs.items() if session._builtin_allowed(name)]
        specs.extend(ToolSpec(t.name, t.description, dict(t.input_schema)) for t in session._host_tools)
        if self._counters.repair_mode:
            read_only = session._read_only_names()
            specs = [spec for spec in specs if spec.name in read_only]
        return specs

    async def _model_step(self) -> AsyncIterator[object]:
        session = self._session
        counters = self._counters
        self._outcome = None
        tools = self._offered_tools()
        request = ModelRequest(
            system=session._system(), messages=list(session._messages), tools=tools,
            max_output_tokens=session.limits.max_output_tokens,
        )
        builtin_names = frozenset(session._builtin_specs)
        counters.steps += 1
        yield StartStepPart()
        response = _Response()
        async for part in self._stream_response(request, response, emit=True, builtin_names=builtin_names):
            yield part
        done = response.done
        assert done is not None
        self._add_usage(done.usage)
        session._context_tokens = (done.usage.input_tokens or 0) + (done.usage.output_tokens or 0)

        offered = [spec.name for spec in tools]
        # Inactive built-ins are not offered, but a call to one is refused, not repaired.
        inactive = [n for n in session._builtin_specs if not session._builtin_allowed(n)]
        checked: list[tuple[RawCall, Any]] = []
        problems: list[CallProblem] = []
        for raw in response.calls:
            value, problem = check_call(
                raw, builtins=session.tools, host_schemas=session._host_schemas(), offered=offered,
                refusable=inactive,
            )
            if problem is None:
                checked.append((raw, value))
            else:
                problems.append(problem)
        if problems:
            for part in self._invalid_call_parts(response, problems, builtin_names):
                yield part
            yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage,
                                 provider_metadata={HARNESS_ID: {"repair": [p.problem for p in problems]}})
            counters.repairs += 1
            session._messages.append(AssistantMessage(
                text=response.text or _WITHHELD, reasoning=tuple(response.reasoning), withheld=True,
            ))
            if counters.repairs > session.limits.max_repairs:
                counters.repair_mode = False
                details = "; ".join(f"{p.name!r}: {p.problem}" for p in problems)
                self._outcome = [self._end(
                    "error",
                    f"the model's response could not be used after {session.limits.max_repairs} repair "
                    f"turn(s): {details}",
                    "unusable-response",
                )]
                return
            counters.repair_mode = True
            session._messages.append(UserMessage(
                text=repair_note(problems, sorted(session._read_only_names())),
                kind="repair",
            ))
            return
        counters.repairs = 0
        counters.repair_mode = False
        session._messages.append(AssistantMessage(
            text=response.text,
            reasoning=tuple(response.reasoning),
            tool_calls=tuple(ToolCallRecord(id=raw.call_id, name=raw.name, arguments=value) for raw, value in checked),
        ))
        if not checked:
            yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage)
            self._outcome = [self._end(done.finish_reason)]
            return
        calls = [self._call_state(raw, value) for raw, value in checked]
        self._validated = {raw.call_id: value for raw, value in checked}
        session._pending = PendingStep(calls=calls, usage=done.usage, finish_reason=done.finish_reason)
        limit = session.limits.max_tool_calls
        if counters.tool_calls + len(calls) > limit:
            message = (
                f"the turn stopped: the model asked for {len(calls)} more tool call(s) after {counters.tool_calls}, "
                f"over max_tool_calls={limit}; send another prompt to go on, or raise max_tool_calls"
            )
            for call in calls:
                call.status, call.content, call.is_error = "done", f"Not run: {message}", True
            for part in self._result_parts(calls):
                yield part
            session._close_pending("")
            yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage)
            self._outcome = self._limit(message, "max-tool-calls")
            return
        counters.tool_calls += len(calls)

    def _invalid_call_parts(self, response: _Response, problems: list[CallProblem],
                            builtin_names: frozenset[str]) -> list[Part]:
        by_id = {p.call_id: p.problem for p in problems}
        parts: list[Part] = []
        for raw in response.calls:
            known = raw.name in builtin_names or raw.name in self._session._host_schemas()
            parts.append(ToolCallPart(
                tool_call_id=raw.call_id,
                tool_name=raw.name,
                input=raw.arguments,
                provider_executed=True if raw.name in builtin_names else None,
                dynamic=None if known else True,
                invalid=True,
                error=by_id.get(raw.call_id, "not run: another call in the same response could not be used"),
            ))
        return parts

    def _call_state(self, raw: RawCall, value: dict[str, Any]) -> CallState:
        session = self._session
        if raw.name in session._builtin_specs:
            if not session._builtin_allowed(raw.name):
                return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="builtin",
                                 status="refused",
                                 reason=f"tool {raw.name!r} is not available in this session (inactive built-in)")
            status = "approval" if session.request.builtin_approvals else "approved"
            return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="builtin", status=status,
                             approval_id=f"approval-{raw.call_id}" if status == "approval" else None)
        return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="host", status="waiting")

    # -- answering and executing a step -------------------------------------------------

    def _tool_call(self, call: CallState) -> ToolCall:
        return ToolCall(
            tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
            provider_executed=call.kind == "builtin",
        )

    def _announce(self, call: CallState) -> list[object]:
        call.announced = True
        if call.kind == "host":
            return [HostToolCall(self._tool_call(call))]
        if call.status == "approval" and call.approval_id is not None:
            # The core announces a call it is asked about (docs/adapters.md, who emits which part).
            return [BuiltinApprovalRequest(call.approval_id, self._tool_call(call))]
        return [ToolCallPart(
            tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments), provider_executed=True,
            dynamic=self._dynamic(call.name),
        )]

    def _dynamic(self, name: str) -> bool | None:
        """Extra tools are outside the declared built-ins: their parts are dynamic."""
        return None if name in BUILTIN_KINDS else True

    def _waiting(self, pending: PendingStep) -> bool:
        return any(c.status == "approval" or (c.kind == "host" and c.status == "waiting") for c in pending.calls)

    async def _wait_until(self, predicate: Callable[[], bool]) -> None:
        while not predicate():
            self._wake = anyio.Event()
            if predicate():
                return
            await self._guard(self._wake.wait())
            if self._aborted:
                raise _Aborted

    async def _finish_step(self) -> AsyncIterator[object]:
        session = self._session
        pending = session._pending
        assert pending is not None
        for call in pending.calls:
            if not call.announced:
                for event in self._announce(call):
                    yield event
        if any(c.status == "approval" for c in pending.calls):
            yield AwaitingAnswers()
            await self._wait_until(lambda: not any(c.status == "approval" for c in pending.calls))
        for call in pending.calls:
            if call.status in ("denied", "refused") and call.content is None:
                reason = call.reason or "denied"
                call.content = f"Execution denied: {reason}" if call.status == "denied" else f"Execution refused: {reason}"
                call.is_error = True
        if not pending.executed:
            await self._guard(self._execute(pending))
            pending.executed = True
        for part in self._result_parts(pending.calls):
            yield part
        if any(c.kind == "host" and c.status == "waiting" for c in pending.calls):
            yield AwaitingAnswers()
            await self._wait_until(lambda: not self._waiting(pending))
        session._messages.append(ToolResultsMessage(results=tuple(
            ToolResultRecord(call_id=c.call_id, name=c.name, content=c.content or "", is_error=c.is_error)
            for c in pending.calls
        )))
        session._pending = None
        yield FinishStepPart(finish_reason="tool-calls", usage=pending.usage)

    def _result_parts(self, calls: list[CallState]) -> list[Part]:
        parts: list[Part] = []
        for call in calls:
            if call.kind != "builtin" or call.reported or call.content is None:
                continue
            call.reported = True
            if call.status == "denied":
                continue  # the core decided the denial and emitted its tool-output-denied part
            if call.status == "refused":
                parts.append(ToolOutputDeniedPart(tool_call_id=call.call_id, tool_name=call.name,
                                                  reason=call.reason, provider_executed=True))
            elif call.is_error:
                parts.append(ToolErrorPart(tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
                                           error=call.content, provider_executed=True,
                                           dynamic=self._dynamic(call.name)))
            else:
                parts.append(ToolResultPart(tool_call_id=call.call_id, tool_name=call.name,
                                            input=dict(call.arguments), output=call.content, provider_executed=True,
                                            dynamic=self._dynamic(call.name)))
            if call.changes:
                change_id = f"{call.call_id}-fileChange"
                data = {"changes": call.changes, "toolCallId": call.call_id}
                parts.append(ToolCallPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data,
                                          provider_executed=True, dynamic=True))
                parts.append(ToolResultPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data,
                                            output=data, provider_executed=True, dynamic=True))
        return parts

    async def _execute(self, pending: PendingStep) -> None:
        session = self._session
        runnable = [c for c in pending.calls if c.kind == "builtin" and c.status == "approved" and c.content is None]
        scheduled = [ScheduledCall(c.name in session._read_only_names(), self._runner(c)) for c in runnable]
        outputs = await run_batch(scheduled, concurrency=session.limits.tool_concurrency)
        for call, output in zip(runnable, outputs, strict=True):
            call.status = "done"
            call.content = output.content
            call.is_error = output.is_error

    def _runner(self, call: CallState) -> Callable[[], Awaitable[ToolOutput]]:
        session = self._session
        tool = session.tools[call.name]
        context = ToolContext(
            tool_call_id=call.call_id, tool_name=call.name, session_id=session.request.session_id,
            harness_id=HARNESS_ID, sandbox=session.sandbox,
            metadata={WORKSPACE_KEY: session.workspace, SETTINGS_KEY: session.tool_settings},
        )
        detect = session.detect_file_changes and call.name == "bash"

        async def run() -> ToolOutput:
            # Validated when the response arrived; validated again after a restore.
            value = self._validated.get(call.call_id) if call.call_id in self._validated else tool.validate(call.arguments)
            before = await anyio.to_thread.run_sync(snapshot, session.workspace.root) if detect else None
            output = await execute_builtin(
                tool, value, context, deadline=session.limits.call_deadline, on_error=session.limits.on_error,
            )
            if before is not None:
                after = await anyio.to_thread.run_sync(snapshot, session.workspace.root)
                call.changes = [change.to_json() for change in diff(before, after)]
            return output

        return run
