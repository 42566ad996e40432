"""One Claude Code turn as an :class:`~harness_core.AdapterTurn`.

The session feeds the SDK message stream (:meth:`ClaudeCodeTurn.deliver`), the permission
callback and the in-process MCP server into one queue that :meth:`ClaudeCodeTurn.events`
drains. A control event waits (at most :data:`PARK_SECONDS`) for the assistant message
announcing its call, so ``tool-input-end`` precedes the ``tool-call`` the core emits."""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final, Literal

import anyio

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PendingRequest,
    ToolCall,
    ToolOutput,
    TurnEnd,
)

from ._calls import CallLedger
from ._events import ClaudeCodeEvent, TurnView
from ._identity import identify_tool
from ._owner import TurnOwner
from ._parking import Parking
from ._pending import RuntimePending, live_request
from ._settings import HOST_SERVER
from ._state import DEFAULT_DENIAL, ApprovalAnswer, PendingCall, ResultAnswer
from ._steering import SteeringLedger
from ._turn_end import api_error, result_turn_end
from ._waiters import Waiters

__all__ = ["PARK_SECONDS", "SETTLE_SECONDS", "ClaudeCodeTurn", "TurnKind", "TurnOwner"]

PARK_SECONDS: Final = 0.5
"""How long a control event waits for the assistant message announcing its call."""

SETTLE_SECONDS: Final = 0.2
"""How long the turn waits for more requests (parallel calls) before it tells the host,
with :class:`~harness_core.AwaitingAnswers`, that Claude Code is blocked on its answers."""

TurnKind = Literal["prompt", "compact", "continue"]


_ids = itertools.count(1)


class ClaudeCodeTurn:
    """A running Claude Code turn (see the module docstring).

    Args:
        owner: the session running the turn.
        kind: ``prompt``, ``compact`` or ``continue``.
        withhold_calls: built-in approvals are on (see :attr:`TurnView.withhold_calls`).

    Attributes:
        kind: ``prompt``, ``compact`` or ``continue``.
        view: the bookkeeping the projection reads (asked, denied, host calls, aliases).
        finished: the turn's :class:`TurnEnd` is queued.
        aborted: :meth:`abort` was called.
        suspended: the session suspended the turn.
        runtime_gone: the CLI exited; a callback it made can no longer be answered.
        runtime: what the CLI holds pending (:class:`~._pending.RuntimePending`).
        steering: the steering messages the CLI has not taken in yet (:mod:`._steering`).
    """

    def __init__(self, owner: TurnOwner, kind: TurnKind, *, withhold_calls: bool = False) -> None:
        self._owner = owner
        self.kind: TurnKind = kind
        self.view = TurnView(host_server=HOST_SERVER, withhold_calls=withhold_calls)
        self._readonly = self.view.readonly()
        self._calls = CallLedger(self.view, DEFAULT_DENIAL)
        self._send, self._recv = anyio.create_memory_object_stream[tuple[str, Any]](math.inf)
        self._approvals: Waiters[ApprovalAnswer] = Waiters()
        self._results: Waiters[ResultAnswer] = Waiters()
        self._parked = Parking()
        self.runtime = RuntimePending(self.view.host_prefix)
        self.steering = SteeringLedger()
        self._outbox: collections.deque[object] = collections.deque()
        self._prelude: Callable[[], Awaitable[None]] | None = None
        self._api_error: tuple[str, str] | None = None
        self._awaiting_due = False
        self._ended = False
        self.finished = False
        self.aborted = False
        self.suspended = False
        self.runtime_gone = False

    # -- feeding (called by the session) --------------------------------------------------

    def deliver(self, message: object) -> None:
        """Queue one SDK message."""
        if not self._ended:
            self._send.send_nowait(("message", message))

    def runtime_exited(self, error: BaseException | None) -> None:
        """The CLI's stream ended (``error`` why, ``None`` on purpose); waiting callbacks are released."""
        self.runtime_gone = True
        self.runtime.freeze()
        if self._ended:
            return
        self._send.send_nowait(("exit", error))
        self._release("Claude Code exited")

    def end(self, reason: Literal["aborted", "suspended"]) -> None:
        """End the turn now (abort or suspend); pending callbacks are released."""
        if self._ended:
            return
        self._send.send_nowait(("end", reason))
        self._ended = True
        self._release(f"the turn was {reason}")

    def _release(self, why: str) -> None:
        self._approvals.release_all(ApprovalAnswer(approved=False, reason=why))
        self._results.release_all(ResultAnswer(content=why, is_error=True))

    @property
    def done(self) -> bool:
        """True once the turn ended (finished, aborted or suspended), read to the end or not."""
        return self.finished or self._ended

    @property
    def waiting(self) -> bool:
        """True while Claude Code waits for an approval or a host tool result."""
        return bool(self._approvals or self._results)

    def pending_calls(self) -> dict[str, PendingCall]:
        """Calls of this turn without a recorded result, with any answer already given."""
        return self._calls.pending()

    def _call_id(self, tool_use_id: str | None, native_name: str, native_input: Any) -> str:
        return self._calls.resolve(tool_use_id, native_name, native_input) or f"call-{next(_ids)}"

    async def request_approval(self, tool_use_id: str | None, native_name: str, native_input: Any) -> ApprovalAnswer:
        """Ask the host about a built-in call and wait for the answer (the SDK callback)."""
        call_id = self._call_id(tool_use_id, native_name, native_input)
        stored = self._calls.take_replay(call_id, native_name, native_input)
        if isinstance(stored, ApprovalAnswer):
            return stored
        identity = identify_tool(native_name, self.view.host_prefix)
        original = self.view.original_id(call_id)
        approval_id = f"approval-{original}"
        call = ToolCall(
            tool_call_id=original, tool_name=identity.tool_name, input=native_input, provider_executed=True,
            dynamic=identity.dynamic, native_tool_name=identity.native_tool_name,
            provider_metadata=identity.metadata() or {},
        )
        self._calls.asked(call_id, "builtin", native_name, None, native_input, approval_id)
        waiter = self._approvals.add(approval_id, call_id)
        self.runtime.add(approval_id, live_request("approval", original, native_name, native_input,
                                                    self.view.host_prefix, approval_id))
        declared = self._owner.mcp_declaration(native_name)
        self._send.send_nowait(("control", (call_id, BuiltinApprovalRequest(approval_id, call, tool=declared))))
        try:
            return await waiter.wait()
        finally:
            self._approvals.discard(approval_id)
            self.runtime.discard(approval_id)

    def refuse(self, tool_use_id: str | None, native_name: str, native_input: Any, reason: str) -> None:
        """The adapter refuses a built-in call without asking the host (its result is a denial)."""
        self.view.refused[self._call_id(tool_use_id, native_name, native_input)] = reason

    async def request_host_result(self, tool_use_id: str | None, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Hand a host tool call to the host and wait for its result (the MCP handler)."""
        native_name = f"{self.view.host_prefix}{tool_name}"
        call_id = self._call_id(tool_use_id, native_name, arguments)
        self._calls.hosted(call_id, tool_name)
        stored = self._calls.take_replay(call_id, native_name, arguments)
        if isinstance(stored, ResultAnswer):
            return ToolOutput(stored.content, stored.is_error, value=stored.blocks)
        original = self.view.original_id(call_id)
        identity = identify_tool(native_name, self.view.host_prefix)
        call = ToolCall(
            tool_call_id=original, tool_name=tool_name, input=arguments, native_tool_name=native_name,
            provider_metadata=identity.metadata() or {},
        )
        self._calls.asked(call_id, "host", native_name, tool_name, arguments)
        waiter = self._results.add(original, call_id)
        self.runtime.add(original, live_request("tool-result", original, native_name, arguments, self.view.host_prefix))
        self._send.send_nowait(("control", (call_id, HostToolCall(call))))
        try:
            answer = await waiter.wait()
        finally:
            self._results.discard(original)
            self.runtime.discard(original)
        return ToolOutput(answer.content, answer.is_error, value=answer.blocks)

    def pending_requests(self) -> list[PendingRequest]:
        """What the CLI holds pending (its requests, or a continued turn's transcript; see
        :mod:`._pending`). Raises ``OSError``/``RuntimeError`` if the transcript is unreadable."""
        return self.runtime.requests({*self._approvals.keys(), *self._results.keys()})

    # -- the AdapterTurn protocol -----------------------------------------------------------

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`~harness_core.BuiltinApprovalRequest`.

        A denial's ``reason`` (or :data:`DEFAULT_DENIAL`) is what the model reads.

        Raises:
            KeyError: ``approval_id`` is not pending in this turn (ignored once the CLI exited).
        """
        waiter = self._approvals.get(approval_id)
        if waiter is None and self.runtime_gone:
            return  # the CLI died waiting: the answer goes nowhere, the turn ends runtime-crashed
        if waiter is None:
            raise KeyError(f"no pending approval {approval_id!r} in this Claude Code turn "
                           f"(pending: {self._approvals.keys() or 'none'})")
        answer = ApprovalAnswer(approved=approved, reason=None if approved else (reason or DEFAULT_DENIAL))
        self._calls.answered(waiter.tool_use_id, answer)
        waiter.settle(answer)

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`~harness_core.HostToolCall` with the host's output.

        Raises:
            KeyError: ``tool_call_id`` is not waiting for a result in this turn.
        """
        waiter = self._results.get(tool_call_id)
        if waiter is None and self.runtime_gone:
            return  # as in submit_approval
        if waiter is None:
            raise KeyError(f"no host tool call {tool_call_id!r} waits for a result in this Claude Code turn "
                           f"(waiting: {self._results.keys() or 'none'})")
        answer = ResultAnswer.of(output)
        self._calls.answered(waiter.tool_use_id, answer)
        waiter.settle(answer)

    async def steer(self, text: str) -> None:
        """Steering: ``text`` goes to the CLI's streaming input (TurnStateError once the turn is over)."""
        await self._owner.send_user_message(text)

    async def abort(self) -> None:
        """Stop the turn: Claude Code is interrupted and its whole process tree killed."""
        if self._ended:
            return
        self.aborted = True
        await self._owner.abort_runtime()
        self.end("aborted")

    def notice(self, part: object) -> None:  # an ``error`` part about an MCP server, emitted next
        self._outbox.append(part)

    async def events(self) -> AsyncIterator[object]:
        """SDK messages (as :class:`ClaudeCodeEvent`), control events and parts, then one :class:`TurnEnd`.

        May be called again after an earlier iterator was abandoned (at a pause, say): it
        carries on where the previous one stopped, losing nothing.
        """
        await self._run_prelude()
        while True:
            while self._outbox:
                yield self._outbox.popleft()
            if self.finished:
                return
            item = await self._next_item()
            if item is not None:
                self._handle(*item)

    # -- continuations (called by the session) --------------------------------------------

    def restore(self, calls: dict[str, PendingCall]) -> None:
        """Adopt the open calls of a suspended turn; asked, unanswered ones wait for the host.

        Restored approvals are answered with :meth:`submit_approval` (by their stored
        ``approval_id``), restored host calls with :meth:`submit_tool_result`.
        """
        self._calls.restore(calls)
        for call_id, call in calls.items():
            if call.answer is not None or not call.asked:
                continue  # answered already, or never asked: Claude Code will ask again
            if call.kind == "builtin":
                self._approvals.add(key := call.approval_id or f"approval-{call_id}", call_id)
                self.runtime.restore("approval", key, call_id)
            else:
                self._results.add(call_id, call_id)
                self.runtime.restore("tool-result", call_id, call_id)
                self._calls.hosted(call_id, call.tool_name or "")

    async def wait_for_answers(self) -> None:
        """Wait until every restored approval and host call has been answered."""
        await self._approvals.wait_all()
        await self._results.wait_all()

    def arm_replay(self, calls: dict[str, PendingCall]) -> None:
        """Continue by re-running: answer repeats of ``calls`` from their stored answers."""
        self._calls.arm_replay(calls)

    def set_prelude(self, prelude: Callable[[], Awaitable[None]]) -> None:
        """Work to do when the host starts reading events (continuations)."""
        self._prelude = prelude

    def fail_now(self, message: str, error_type: str) -> None:
        """End the turn before it started: its only event is an error :class:`TurnEnd`."""
        self.finished = self._ended = True
        self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type=error_type))

    # -- internals --------------------------------------------------------------------------

    async def _run_prelude(self) -> None:
        prelude, self._prelude = self._prelude, None
        if prelude is None:
            return
        try:
            await prelude()
        except Exception as error:
            self.fail_now(f"could not continue the Claude Code turn: {error}", "continue-failed")

    async def _next_item(self) -> tuple[str, Any] | None:
        """The next queued item, or ``None`` after a wait ran out (and its consequence was queued)."""
        item: tuple[str, Any] | None = None
        if self._awaiting_due and not self._parked:
            with anyio.move_on_after(SETTLE_SECONDS):
                item = await self._recv.receive()
            if item is None:
                self._awaiting_due = False
                if self.waiting:
                    self._outbox.append(AwaitingAnswers())
            return item
        if self._parked:
            with anyio.move_on_after(PARK_SECONDS):
                item = await self._recv.receive()
            if item is None:
                self._outbox.extend(self._parked.release_all())
            return item
        return await self._recv.receive()

    def _handle(self, kind: str, payload: Any) -> None:
        if kind == "message":
            self._on_message(payload)
        elif kind == "control":
            self._awaiting_due = True
            admitted = self._parked.admit(*payload)
            if admitted is not None:
                self._outbox.append(admitted)
        elif kind == "exit":
            self._on_exit(payload)
        elif kind == "end" and not self.finished:
            self.finished = True
            status: Any = "aborted" if payload == "aborted" else (
                "awaiting-tool-result" if self._results else "awaiting-approval")
            self._outbox.append(TurnEnd(finish_reason=status))

    def _on_message(self, message: object) -> None:
        from claude_agent_sdk import (
            AssistantMessage,
            ResultMessage,
            SystemMessage,
            ToolResultBlock,
            ToolUseBlock,
            UserMessage,
        )

        if isinstance(message, SystemMessage) and message.subtype == "init":
            session_id = message.data.get("session_id")
            if isinstance(session_id, str):
                self._owner.note_claude_session(session_id)
        elif isinstance(message, AssistantMessage):
            self._api_error = api_error(message) or self._api_error
            for block in message.content:
                if isinstance(block, ToolUseBlock):
                    self._parked.announced(block.id)
                    if message.parent_tool_use_id is None:
                        self._calls.announced(block.id, block.name, block.input)
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    self._calls.finished(block.tool_use_id)
        self._outbox.append(ClaudeCodeEvent(message, self._readonly))
        if isinstance(message, ResultMessage):
            if message.session_id:
                self._owner.note_claude_session(message.session_id)
            self._outbox.extend(self._calls.unrepeated_parts())
            end = result_turn_end(message, cost_usd=self._owner.turn_cost(message.total_cost_usd),
                                  aborted=self.aborted, last_api_error=self._api_error)
            if self.steering.another_turn_follows(message) and end.finish_reason == "stop":
                self.steering.carry(end)  # a late steer gets a CLI turn of its own: read on (._steering)
                return
            self.finished = self._ended = True
            self._outbox.append(self.steering.total(end))
            return
        self._outbox.extend(self._parked.ready())

    def _on_exit(self, error: BaseException | None) -> None:
        if self.finished:
            return
        self.finished = self._ended = True
        if self.aborted:
            self._outbox.append(TurnEnd(finish_reason="aborted"))
            return
        message = self._owner.runtime_failed(error)
        self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type="runtime-crashed"))
