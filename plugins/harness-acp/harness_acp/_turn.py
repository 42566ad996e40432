"""One ACP turn as an :class:`~harness_core.AdapterTurn`.

A turn is one ``session/prompt`` request (plus, for agents that end the prompt when a
permission is rejected, one follow-up prompt telling the model why). Three sources feed
one queue that :meth:`AcpTurn.events` drains in order: ``session/update`` notifications
(:meth:`AcpTurn.deliver`), ``session/request_permission`` requests
(:meth:`AcpTurn.request_permission`, which become
:class:`~harness_core.BuiltinApprovalRequest`\\ s) and relayed host tool calls
(:meth:`AcpTurn.request_host_result`, which become :class:`~harness_core.HostToolCall`\\ s).
The prompt's response ends the turn with one :class:`~harness_core.TurnEnd`.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import math
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

import anyio
import attrs

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    FinishReason,
    HostToolCall,
    PendingRequest,
    StepBoundaries,
    ToolCall,
    ToolOutput,
    TurnEnd,
    Usage,
)

from ._calls import CallTracker, file_change_parts
from ._events import AcpEvent
from ._tools import to_tool_call
from ._write_grants import WriteGrants

if TYPE_CHECKING:
    from ._session import AcpSession

__all__ = ["DEFAULT_DENIAL", "SETTLE_SECONDS", "AcpTurn"]

SETTLE_SECONDS: Final = 0.2
"""How long the turn waits for more requests before telling the host it is blocked."""

HOLD_SECONDS: Final = 1.0
"""While built-in approvals are on, how long a call the agent reports running waits for a
permission request about it (codex-acp may send the two in either order) before its
``tool-call`` part goes out."""

DEFAULT_DENIAL: Final = "The host denied this tool call."

_STOP: Final[dict[str, FinishReason]] = {
    "end_turn": "stop", "max_tokens": "length", "max_turn_requests": "length", "refusal": "content-filter",
}
_TOOL_UPDATES: Final = frozenset({"tool_call", "tool_call_update"})
_ids = itertools.count(1)


@attrs.define
class _Waiter:
    call_id: str
    options: list[Any] = attrs.field(factory=list)
    request: ToolCall | None = None
    event: asyncio.Event = attrs.field(factory=asyncio.Event)
    approved: bool = False
    reason: str | None = None
    output: ToolOutput | None = None
    cancelled: bool = False

    def settle(self, approved: bool, reason: str | None = None, output: ToolOutput | None = None,
               *, cancelled: bool = False) -> None:
        if not self.event.is_set():
            self.approved, self.reason, self.output, self.cancelled = approved, reason, output, cancelled
            self.event.set()


def _option(options: list[Any], kind: str) -> str | None:
    for option in options:
        if str(getattr(option.kind, "value", option.kind)) == kind:
            return str(option.option_id)
    return None


def permission_response(options: list[Any], approved: bool, *, cancelled: bool = False) -> Any:
    """The SDK response choosing ``allow_once`` / ``reject_once``; ``cancelled`` when asked or when the option is missing.

    Fail closed: an approval without an ``allow_once`` option is answered ``cancelled``;
    requests pending when the turn is aborted are answered ``cancelled`` (ACP's rule after
    ``session/cancel``).
    """
    import acp
    from acp.schema import AllowedOutcome, DeniedOutcome

    option_id = None if cancelled else _option(options, "allow_once" if approved else "reject_once")
    if option_id is None:
        return acp.RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
    return acp.RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))


class AcpTurn:
    """A running ACP turn (see the module docstring)."""

    def __init__(self, session: AcpSession, *, hold_pending: bool, hold_until_final: bool = False) -> None:
        self._session = session
        self.tracker = CallTracker(hold_pending=hold_pending, host_server=session.host_server,
                                   hold_until_final=hold_until_final, hold_seconds=HOLD_SECONDS)
        self._send, self._recv = anyio.create_memory_object_stream[tuple[str, Any]](math.inf)
        self._outbox: collections.deque[object] = collections.deque()
        self._approvals: dict[str, _Waiter] = {}
        self._host_waiters: dict[str, _Waiter] = {}
        self._denials: list[tuple[str, str]] = []
        self.write_grants = WriteGrants()  # fs/write_text_file targets approved calls named
        self._task: asyncio.Task[None] | None = None
        self._settle_at: float | None = None
        self._usage = Usage()
        # stop conditions: the profile says how a model step ends (AgentProfile.step_signal)
        self._steps = StepBoundaries(response_signal=session.step_signal == "usage")
        self.finished = False
        self.ended = False
        self.aborted = False

    # -- feeding ---------------------------------------------------------------------------

    def start(self, text: str) -> None:
        """Send ``session/prompt`` in the background."""
        self._task = asyncio.ensure_future(self._run(text))

    async def _run(self, text: str) -> None:
        import acp

        session = self._session
        while True:
            try:
                response = await session.conn.prompt(session_id=session.acp_session_id, prompt=[acp.text_block(text)])
            except acp.RequestError as error:
                await asyncio.sleep(0)
                self._push("error", session.describe_error(error))
                return
            except Exception as error:
                await asyncio.sleep(0)
                self._push("crash", error)
                return
            await asyncio.sleep(0)  # let the notifications sent before the response land first
            stop = str(getattr(response.stop_reason, "value", response.stop_reason))
            if stop == "cancelled" and not self.aborted and self._denials and session.reject_ends_turn:
                denials, self._denials = self._denials, []
                text = "\n".join(f"The host denied the tool call {title!r}: {reason}" for title, reason in denials)
                text += "\nDo not retry it; continue without it."
                continue
            self._push("done", response)
            return

    def _push(self, kind: str, payload: Any) -> None:
        if not self.ended:
            self._send.send_nowait((kind, payload))

    def deliver(self, update: Any) -> None:
        """Queue one ``session/update`` payload."""
        self._push("update", update)

    def file_written(self, path: str, kind: str) -> None:
        """The agent wrote a file through ``fs/write_text_file``."""
        self._push("file", (path, kind))

    @property
    def done(self) -> bool:
        """True once the turn ended (finished or aborted), read to the end or not."""
        return self.finished or self.ended

    @property
    def waiting(self) -> bool:
        """True while the agent waits for an approval or a host tool result."""
        return any(not w.event.is_set() for w in [*self._approvals.values(), *self._host_waiters.values()])

    async def request_permission(self, tool_call: Any, options: list[Any]) -> Any:
        """Answer ``session/request_permission``: host calls are allowed (the core decides
        them in its host-tool path); built-ins go to the host as a :class:`BuiltinApprovalRequest`."""
        if self.done:
            return permission_response(options, False)
        tool_call = self._session.permission_call(tool_call)
        if self.tracker.is_host_call(tool_call) or not self._session.builtin_approvals:
            return permission_response(options, True)
        call_id, identity, tool_input = self.tracker.claim_for_approval(tool_call)
        approval_id = f"acp-approval-{call_id}"
        call = to_tool_call(call_id, identity, tool_input)
        waiter = self._approvals[approval_id] = _Waiter(call_id, options, call)
        self._push("control", BuiltinApprovalRequest(approval_id, call))
        await waiter.event.wait()
        if waiter.approved:
            self.write_grants.grant(tool_call)
        else:
            self._steps.call_finished(call_id)
            self.tracker.mark_denied(call_id)
            if not waiter.cancelled:
                self._denials.append((identity.title, waiter.reason or DEFAULT_DENIAL))
        return permission_response(options, waiter.approved, cancelled=waiter.cancelled)

    async def request_host_result(self, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        """A relayed host tool call: hand it to the host and wait for its result."""
        if self.done:
            return ToolOutput("No turn is running; the host tool call was refused.", is_error=True)
        call_id = await self._host_call_id(tool_name)
        call = ToolCall(tool_call_id=call_id, tool_name=tool_name, input=arguments,
                        native_tool_name=f"mcp__{self._session.host_server}__{tool_name}")
        waiter = self._host_waiters[call_id] = _Waiter(call_id, request=call)
        self._push("control", HostToolCall(call))
        await waiter.event.wait()
        return waiter.output or ToolOutput(waiter.reason or "the turn ended", is_error=True)

    async def _host_call_id(self, tool_name: str) -> str:
        # The agent's tool_call notification and the relay's request race; give the
        # notification a moment so the host sees the agent's own call id.
        for _ in range(6):
            call_id = self.tracker.take_host_call(tool_name)
            if call_id is not None:
                return call_id
            await asyncio.sleep(0.05)
        return f"acp-host-{next(_ids)}"

    def pending_requests(self) -> list[PendingRequest]:
        """The agent's open requests as it sent them (``session/request_permission``, relayed
        host calls). Same process only: an ACP turn cannot be suspended (docs/acp.md)."""
        return [*(PendingRequest(kind="approval", call=w.request, approval_id=key)
                  for key, w in self._approvals.items() if w.request is not None and not w.event.is_set()),
                *(PendingRequest(kind="tool-result", call=w.request)
                  for w in self._host_waiters.values() if w.request is not None and not w.event.is_set())]

    # -- AdapterTurn -----------------------------------------------------------------------

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`BuiltinApprovalRequest` (``allow_once`` or ``reject_once``).

        Raises:
            KeyError: ``approval_id`` is not pending in this turn.
        """
        waiter = self._approvals.get(approval_id)
        if waiter is None or waiter.event.is_set():
            raise KeyError(f"no pending approval {approval_id!r} in this ACP turn")
        waiter.settle(approved, None if approved else (reason or DEFAULT_DENIAL))

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`HostToolCall`.

        Raises:
            KeyError: ``tool_call_id`` is not waiting for a result in this turn.
        """
        waiter = self._host_waiters.get(tool_call_id)
        if waiter is None or waiter.event.is_set():
            raise KeyError(f"no host tool call {tool_call_id!r} waits for a result in this ACP turn")
        self._steps.call_finished(tool_call_id)
        waiter.settle(True, output=output)

    def _release(self, reason: str) -> None:
        for waiter in [*self._approvals.values(), *self._host_waiters.values()]:
            waiter.settle(False, reason, ToolOutput(reason, is_error=True), cancelled=True)

    async def abort(self) -> None:
        """Cancel the prompt (``session/cancel``); kill the agent if it does not stop in time."""
        if self.ended:
            return
        self.aborted = True
        self._release("the turn was aborted")
        await self._session.cancel_turn(self._task)
        self._push("end", "aborted")
        self.ended = True

    def fail_now(self, message: str, error_type: str) -> None:
        """End the turn before it started: its only event is an error :class:`TurnEnd`."""
        self.finished = self.ended = True
        self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type=error_type))

    def runtime_exited(self) -> None:
        """The agent process died: release everything waiting on it."""
        self._release("the agent exited")

    async def events(self) -> AsyncIterator[object]:
        """ACP events, control events and parts, then one :class:`TurnEnd` (resumable after a pause)."""
        while True:
            while self._outbox:
                yield self._outbox.popleft()
            if self.finished:
                return
            item: tuple[str, Any] | None = None
            deadlines = [d for d in (self._settle_at, self.tracker.next_release()) if d is not None]
            if deadlines:
                with anyio.move_on_after(max(0.0, min(deadlines) - time.monotonic())):
                    item = await self._recv.receive()
            else:
                item = await self._recv.receive()
            if item is not None:
                self._handle(*item)
                continue
            now = time.monotonic()
            released = self.tracker.release_due(now)
            if released:
                self._outbox.append(AcpEvent(parts=tuple(released)))
            if self._settle_at is not None and now >= self._settle_at:
                self._settle_at = None
                if self.waiting:
                    self._outbox.append(AwaitingAnswers())

    def _handle(self, kind: str, payload: Any) -> None:
        if kind == "update":
            name = getattr(payload, "session_update", None)
            if name in _TOOL_UPDATES:
                call_id = str(getattr(payload, "tool_call_id", ""))
                parts = [*self._steps.model_output(call_id), *self.tracker.on_update(payload)]
                if str(getattr(payload.status, "value", payload.status)) in ("completed", "failed"):
                    self._steps.call_finished(call_id)
                if parts:
                    self._outbox.append(AcpEvent(parts=tuple(parts)))
                return
            if name == "usage_update":
                self._note_usage(payload)
                self._steps.response_done()
            if name == "agent_message_chunk" and self._session.is_noise(payload):
                return
            if name in ("agent_message_chunk", "agent_thought_chunk"):
                boundary = self._steps.model_output()
                if boundary:
                    self._outbox.append(AcpEvent(parts=tuple(boundary)))
            self._outbox.append(AcpEvent(update=payload))
        elif kind == "control":
            self._settle_at = time.monotonic() + SETTLE_SECONDS
            boundary = self._steps.model_output(payload.call.tool_call_id)  # in queue order, like the updates
            if boundary:
                self._outbox.append(AcpEvent(parts=tuple(boundary)))
            self._outbox.append(payload)
        elif kind == "file":
            path, change = payload
            parts = file_change_parts(f"acp-write-{next(_ids)}", [{"path": path, "kind": change}])
            self._outbox.append(AcpEvent(parts=tuple(parts)))
        elif kind in ("done", "error", "crash", "end") and not self.finished:
            self._finish(kind, payload)

    def _note_usage(self, update: Any) -> None:
        used = getattr(update, "used", None)
        cost = getattr(update, "cost", None)
        amount = getattr(cost, "amount", None)
        self._usage = Usage(total_tokens=used if isinstance(used, int) else None,
                            cost_usd=float(amount) if isinstance(amount, int | float) else None)

    def _finish(self, kind: str, payload: Any) -> None:
        self.finished = self.ended = True
        leftovers = self.tracker.flush()
        if leftovers:
            self._outbox.append(AcpEvent(parts=tuple(leftovers)))
        self._outbox.append(AcpEvent(close=True))
        if kind == "end" or self.aborted:
            self._outbox.append(TurnEnd(finish_reason="aborted", usage=self._usage))
        elif kind == "done":
            self._outbox.append(TurnEnd(finish_reason=self._reason(payload), usage=self._usage_of(payload)))
        elif kind == "error":
            self._session.restart_before_next_prompt()
            self._outbox.append(TurnEnd(finish_reason="error", usage=self._usage, error=str(payload),
                                        error_type="agent-error"))
        else:
            # the connection can close before the process is reaped: never reuse it
            self._session.restart_before_next_prompt()
            message = self._session.describe_crash(payload)
            self._outbox.append(TurnEnd(finish_reason="error", usage=self._usage, error=message,
                                        error_type="runtime-crashed"))

    def _reason(self, response: Any) -> FinishReason:
        stop = str(getattr(response.stop_reason, "value", response.stop_reason))
        return _STOP.get(stop, "other")

    def _usage_of(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        if usage is None:
            return self._usage
        return Usage(
            input_tokens=getattr(usage, "input_tokens", None), output_tokens=getattr(usage, "output_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
            cached_input_tokens=getattr(usage, "cached_read_tokens", None),
            reasoning_tokens=getattr(usage, "thought_tokens", None), cost_usd=self._usage.cost_usd,
        )
