"""One pi turn: pi's RPC records in, native events and control events out.

The session routes every record pi writes to its current turn (:meth:`PiTurn.deliver`);
:meth:`PiTurn.events` turns them into what the agent reads:

* assistant messages -> :class:`~harness_pi._events.PiRecord` (text, thinking, steps);
* a gate request (``harness-pi/v1:gate``) -> :class:`~harness_core.BuiltinApprovalRequest`;
  a host request (``harness-pi/v1:host``) -> :class:`~harness_core.HostToolCall`; each
  followed by :class:`~harness_core.AwaitingAnswers` once pi has nothing more to say;
* ``tool_execution_start`` of a built-in the host does not gate -> a ``tool-call``;
  ``tool_execution_end`` -> its result, except for host tools (the agent projects those)
  and calls the host denied (the agent emitted ``tool-output-denied``); a call pi refused
  before anyone saw it gets its ``tool-call`` there, and one to a withheld (inactive) host
  tool becomes :class:`~harness_pi._events.PiRefusedHostCall`;
* ``agent_settled`` (pi 1.x; ``agent_end`` without ``willRetry`` on 0.73) -> the one
  :class:`~harness_core.TurnEnd`, so pi's automatic retries stay inside the turn;
* pi's exit before that -> ``TurnEnd(error_type="runtime-crashed")``.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PendingRequest,
    ToolCall,
    ToolOutput,
    TurnEnd,
    TurnStateError,
    Usage,
)

from ._builtins import BY_NATIVE, common_name
from ._calls import CallBook, Pending, host_answer
from ._events import (
    PiCompaction,
    PiRecord,
    PiRefusedHostCall,
    PiToolCall,
    PiToolProgress,
    PiToolResult,
)
from ._extension import GATE_TITLE, HOST_TITLE
from ._pending import held_call
from ._projection import usage_from
from ._rich import result_items, result_text
from ._rpc import PiCommandError
from ._settings import HARNESS_ID
from ._state import Answer, OpenCall

if TYPE_CHECKING:
    from ._session import PiSession

__all__ = ["DEFAULT_DENIAL", "PiTurn", "TurnKind"]

DEFAULT_DENIAL: Final = "The user denied this tool call."
SETTLE_SECONDS: Final = 0.05
_DIALOGS: Final = ("select", "confirm", "input", "editor")

TurnKind = Literal["prompt", "compact", "continue"]


class PiTurn:
    """One running turn (an :class:`~harness_core.AdapterTurn`); see the module docs."""

    def __init__(self, session: PiSession, kind: TurnKind, *, gate: bool, host_names: frozenset[str],
                 withheld: frozenset[str] = frozenset(), settled_event: bool = True) -> None:
        self._session = session
        self.kind = kind
        self._gate = gate
        self._host_names = host_names
        self._withheld = withheld - host_names
        self._settled_event = settled_event
        self._send, self._recv = anyio.create_memory_object_stream[tuple[str, Any]](math.inf)
        self._outbox: deque[object] = deque()
        self.calls = CallBook()
        self._usage = Usage()
        self._started = kind == "compact"
        self._error: tuple[str, str] | None = None
        self._last_stop: str | None = None
        self._awaiting_due = False
        self._prelude: Callable[[], Awaitable[None]] | None = None
        self._compacted = False
        self.aborted = False
        self.finished = False
        self.held: dict[str, tuple[str, Any]] = {}
        """A continued turn's open calls as pi's saved session holds them (see :mod:`._pending`)."""

    # -- input from the session ---------------------------------------------------------

    def deliver(self, record: dict[str, Any]) -> None:
        """A record pi wrote (called by the session's reader)."""
        if not self.finished:
            self._send.send_nowait(("record", record))

    def runtime_exited(self, description: str) -> None:
        """pi exited while this turn ran."""
        if not self.finished:
            self._send.send_nowait(("exit", description))

    def end_now(self, end: TurnEnd) -> None:
        """End the turn with ``end`` once the events read so far are out."""
        if not self.finished:
            self._send.send_nowait(("end", end))

    def compact_done(self, data: object) -> None:
        """The ``compact`` command answered (its summary, when no event carried it)."""
        self._send.send_nowait(("compacted", data))

    def set_prelude(self, prelude: Callable[[], Awaitable[None]]) -> None:
        """Work to do when the host starts reading events (a continued turn starts pi there)."""
        self._prelude = prelude

    def pending_requests(self) -> list[PendingRequest]:
        """What pi holds pending: its extension's requests, or a continued turn's open calls in
        pi's saved session (never the continuation state's copy)."""
        requests: list[PendingRequest] = []
        for key, pending in self.calls.approvals.items():
            call = pending.request or held_call(pending.call_id, self.held, builtin=True)
            if call is not None:
                requests.append(PendingRequest(kind="approval", call=call, approval_id=key))
        for pending in self.calls.host_waiters.values():
            call = pending.request or held_call(pending.call_id, self.held, builtin=False)
            if call is not None:
                requests.append(PendingRequest(kind="tool-result", call=call))
        return requests

    # -- the AdapterTurn protocol ---------------------------------------------------------

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`~harness_core.BuiltinApprovalRequest`; a denial's ``reason`` reaches the model.

        Raises:
            KeyError: ``approval_id`` is not pending in this turn.
        """
        pending = self.calls.approvals.pop(approval_id, None)
        if pending is None:
            raise KeyError(f"no pending approval {approval_id!r} in this pi turn "
                           f"(pending: {sorted(self.calls.approvals) or 'none'})")
        answer = Answer(kind="approval", approved=approved, reason=None if approved else (reason or DEFAULT_DENIAL))
        self.calls.record(pending.call_id, answer)
        if not approved:
            self.calls.silenced.add(pending.call_id)
        if pending.ui_id is None:
            self.calls.replay[pending.call_id] = answer
            return
        await self._answer_gate(pending.ui_id, answer)

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`~harness_core.HostToolCall`.

        Raises:
            KeyError: ``tool_call_id`` does not wait for a result in this turn.
        """
        pending = self.calls.host_waiters.pop(tool_call_id, None)
        if pending is None:
            raise KeyError(f"no host tool call {tool_call_id!r} waits for a result in this pi turn "
                           f"(waiting: {sorted(self.calls.host_waiters) or 'none'})")
        items, text = result_items(output, self._session.tool_result_content)
        answer = Answer(kind="result", content=text, is_error=output.is_error, items=items)
        self.calls.record(pending.call_id, answer)
        if pending.ui_id is None:
            self.calls.replay[pending.call_id] = answer
            return
        await self._session.answer_ui(pending.ui_id, host_answer(answer))

    async def steer(self, text: str) -> None:
        """Steering (:class:`~harness_core.SteerableTurn`): pi's ``steer`` command.

        Raises:
            TurnStateError: the turn is over, or pi refused the message.
        """
        if self.finished:
            raise TurnStateError("pi: the turn is over; send a new prompt instead of steering it")
        try:
            await self._session.steer(text)
        except PiCommandError as error:
            raise TurnStateError(f"pi: steer failed: {error}") from error

    async def abort(self) -> None:
        """Stop the turn: pi aborts it (its tools' processes end); nothing keeps running."""
        if self.finished:
            return
        self.aborted = True
        await self._session.abort_turn(self)
        self.finish()

    def finish(self) -> None:
        """Mark the turn over (no more events are read)."""
        self.finished = True

    async def events(self) -> AsyncIterator[object]:
        """Native events, control events, then one :class:`~harness_core.TurnEnd` (see the module docs).

        May be called again after an earlier iterator was abandoned at a pause.
        """
        if self._prelude is not None:
            prelude, self._prelude = self._prelude, None
            try:
                await prelude()
            except Exception as error:
                self.finished = True
                yield TurnEnd(finish_reason="error", error=f"could not continue the pi turn: {error}",
                              error_type="continue-failed")
                return
        while True:
            while self._outbox:
                item = self._outbox.popleft()
                if isinstance(item, TurnEnd):
                    self.finished = True
                    yield item
                    return
                yield item
            if self.finished:
                return
            if self._awaiting_due:
                received: tuple[str, Any] | None = None
                with anyio.move_on_after(SETTLE_SECONDS):
                    received = await self._recv.receive()
                if received is None:
                    self._awaiting_due = False
                    if self.calls.waiting:
                        yield AwaitingAnswers()
                    continue
            else:
                received = await self._recv.receive()
            await self._handle(*received)

    # -- translating pi's records -----------------------------------------------------------

    async def _handle(self, kind: str, payload: Any) -> None:
        if kind == "record":
            await self._record(payload)
        elif kind == "exit":
            if self.aborted:
                self._outbox.append(TurnEnd(finish_reason="aborted", usage=self._usage))
            else:
                self._outbox.append(TurnEnd(finish_reason="error", usage=self._usage, error=payload,
                                            error_type="runtime-crashed"))
        elif kind == "end":
            self._outbox.append(payload)
        elif kind == "compacted":
            data = payload if isinstance(payload, Mapping) else {}
            if not self._compacted and isinstance(data.get("summary"), str):
                self._outbox.append(PiCompaction(self._session.new_compaction_id(), "manual", data["summary"],
                                                 data.get("tokensBefore")))
            self._outbox.append(TurnEnd(finish_reason="stop", usage=usage_from(data.get("usage"))))

    async def _record(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "agent_start":
            self._started = True
        elif kind == "extension_ui_request":
            await self._ui_request(record)
        elif not self._started:
            return  # left over from an earlier run (an abort's agent_settled, say)
        elif kind in ("message_start", "message_update", "message_end"):
            self._message(record)
        elif kind == "tool_execution_start":
            self._tool_start(record)
        elif kind == "tool_execution_update":
            self._tool_update(record)
        elif kind == "tool_execution_end":
            self._tool_end(record)
        elif kind == "compaction_end":
            result = record.get("result")
            if isinstance(result, Mapping) and isinstance(result.get("summary"), str):
                self._compacted = True
                self._outbox.append(PiCompaction(self._session.new_compaction_id(), str(record.get("reason", "")),
                                                 result["summary"], result.get("tokensBefore")))
            elif record.get("errorMessage") and self.kind == "compact":
                self._error = (f"pi: compaction failed: {record['errorMessage']}", "compaction-failed")
        elif kind == "auto_retry_end" and record.get("success") is False:
            self._error = (f"pi: {record.get('finalError') or 'the model request failed'}", "model-error")
        elif kind == "agent_settled" or (kind == "agent_end" and not self._settled_event
                                         and not record.get("willRetry")):
            self._outbox.append(self._turn_end(bool(record.get("aborted"))))

    def _message(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        role = message.get("role") if isinstance(message, Mapping) else "assistant"
        if role != "assistant":
            return
        self._outbox.append(PiRecord(record))
        if record.get("type") == "message_end" and isinstance(message, Mapping):
            self._usage = self._usage + usage_from(message.get("usage"))
            self._last_stop = str(message.get("stopReason") or "")
            if self._last_stop == "error":
                self._error = (f"pi: {message.get('errorMessage') or 'the model request failed'}", "model-error")
            elif self._last_stop != "aborted":
                self._error = None

    def _turn_end(self, aborted: bool) -> TurnEnd:
        if aborted or self.aborted or self._last_stop == "aborted":
            return TurnEnd(finish_reason="aborted", usage=self._usage)
        if self._error is not None:
            return TurnEnd(finish_reason="error", usage=self._usage, error=self._error[0], error_type=self._error[1])
        return TurnEnd(finish_reason="length" if self._last_stop == "length" else "stop", usage=self._usage)

    def _tool_start(self, record: dict[str, Any]) -> None:
        call_id, name = str(record.get("toolCallId", "")), str(record.get("toolName", ""))
        args = record.get("args")
        host = name in self._host_names
        self.calls.note(call_id, OpenCall(kind="host" if host else "builtin", native_name=name,
                                          tool_name=name if host else common_name(name), input=args))
        if host:
            self.calls.host_calls.add(self.calls.original(call_id))
        elif not self._gate and name not in self._withheld:  # a withheld name waits for pi's verdict
            self.calls.shown.add(self.calls.original(call_id))
            self._outbox.append(PiToolCall(call_id, name, args))

    def _tool_update(self, record: dict[str, Any]) -> None:
        call_id = self.calls.original(str(record.get("toolCallId", "")))
        text = result_text(record.get("partialResult"))
        if text and call_id in self.calls.open and call_id not in self.calls.host_calls \
                and call_id not in self.calls.silenced:
            self._outbox.append(PiToolProgress(call_id, str(record.get("toolName", "")), record.get("args"), text))

    def _tool_end(self, record: dict[str, Any]) -> None:
        call_id = self.calls.original(str(record.get("toolCallId", "")))
        name, text = str(record.get("toolName", "")), result_text(record.get("result"))
        open_call = self.calls.open.get(call_id)
        args = open_call.input if open_call is not None else record.get("args")  # the end record has none
        self.calls.closed(call_id)
        if call_id in self.calls.host_calls or call_id in self.calls.silenced:
            return
        if call_id not in self.calls.shown and (open_call is None or not open_call.asked):
            # Neither shown nor asked: pi refused it before any gate (an unknown tool, bad arguments).
            if name in self._withheld and record.get("isError"):
                self._outbox.append(PiRefusedHostCall(call_id, name, args, text))
                return
            self._outbox.append(PiToolCall(call_id, name, args))
        self._outbox.append(PiToolResult(call_id, name, args, text, bool(record.get("isError"))))

    # -- extension UI requests: the gate and host tools --------------------------------------

    async def _answer_gate(self, ui_id: str, answer: Answer) -> None:
        value = {"allow": True} if answer.approved else {"allow": False, "reason": answer.reason or DEFAULT_DENIAL}
        await self._session.answer_ui(ui_id, value)

    async def _ui_request(self, record: dict[str, Any]) -> None:
        ui_id, method, title = record.get("id"), record.get("method"), record.get("title")
        if not isinstance(ui_id, str) or method not in _DIALOGS:
            return  # notify, setStatus...: fire and forget
        try:
            payload = json.loads(record.get("placeholder") or "")
        except ValueError:
            payload = None
        if method != "input" or title not in (GATE_TITLE, HOST_TITLE) or not isinstance(payload, Mapping) \
                or self.finished:
            await self._session.cancel_ui(ui_id)  # another extension's dialog, or none expected: fail closed
            return
        call_id, name, args = str(payload.get("toolCallId", "")), str(payload.get("toolName", "")), payload.get("input")
        self.calls.note(call_id, OpenCall(kind="host" if title == HOST_TITLE else "builtin", native_name=name,
                                          tool_name=name if title == HOST_TITLE else common_name(name), input=args))
        replayed = self.calls.take_replay(call_id, name, args)
        original = self.calls.original(call_id)
        if title == GATE_TITLE:
            if replayed is not None and replayed.kind == "approval":
                if not replayed.approved:
                    self.calls.silenced.add(original)
                await self._answer_gate(ui_id, replayed)
                return
            approval_id = f"approval-{original}"
            open_call = self.calls.open.get(original)
            if open_call is not None:
                open_call.asked, open_call.approval_id = True, approval_id
            builtin = BY_NATIVE.get(name)
            metadata = {HARNESS_ID: {"nativeToolName": name}} if builtin is not None and builtin.name != name else {}
            call = ToolCall(tool_call_id=original, tool_name=common_name(name), input=args, provider_executed=True,
                            dynamic=builtin is None, native_tool_name=name, provider_metadata=metadata)
            self.calls.approvals[approval_id] = Pending(original, ui_id, call)
            self._outbox.append(BuiltinApprovalRequest(approval_id, call))
        else:
            self.calls.host_calls.add(original)
            if replayed is not None and replayed.kind == "result":
                await self._session.answer_ui(ui_id, host_answer(replayed))
                return
            host_call = ToolCall(tool_call_id=original, tool_name=name, input=args, native_tool_name=name)
            self.calls.host_waiters[original] = Pending(original, ui_id, host_call)
            open_call = self.calls.open.get(original)
            if open_call is not None:
                open_call.asked = True
            self._outbox.append(HostToolCall(host_call))
        self._awaiting_due = True

