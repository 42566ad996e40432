"""One Claude Code turn as an :class:`~harness_core.AdapterTurn`.

The session feeds the turn from three sources: the SDK message stream (through
:meth:`ClaudeCodeTurn.deliver`), the SDK's permission callback
(:meth:`ClaudeCodeTurn.request_approval`) and the in-process MCP server
(:meth:`ClaudeCodeTurn.request_host_result`). Everything lands in one queue that
:meth:`ClaudeCodeTurn.events` drains, so the host sees one ordered stream: SDK messages
wrapped in :class:`~harness_claude_code.ClaudeCodeEvent`, control events, a few parts
the adapter makes itself, and a final :class:`~harness_core.TurnEnd`.

A control event about a call is held back (at most :data:`PARK_SECONDS`) until the
assistant message announcing that call has been yielded, so the ``tool-call`` part
always precedes its ``tool-approval-request``.
"""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio
import attrs

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    ToolCall,
    ToolOutput,
    TurnEnd,
)
from harness_core.parts.models import Part, ToolErrorPart, ToolOutputDeniedPart, Usage

from ._events import ClaudeCodeEvent, TurnView
from ._projection import API_ERROR_TYPES, dumps_input, finish_reason, identify_tool, usage_from
from ._settings import HOST_SERVER
from ._state import ApprovalAnswer, PendingCall, ResultAnswer

if TYPE_CHECKING:
    from ._session import ClaudeCodeSession

__all__ = ["DEFAULT_DENIAL", "PARK_SECONDS", "ClaudeCodeTurn"]

PARK_SECONDS: Final = 0.5
"""How long a control event waits for the assistant message announcing its call."""

SETTLE_SECONDS: Final = 0.2
"""How long the turn waits for more requests (parallel calls) before it tells the host,
with :class:`~harness_core.AwaitingAnswers`, that Claude Code is blocked on its answers."""

DEFAULT_DENIAL: Final = "The host denied this tool call."
"""What the model reads when a denial came without a reason."""

TurnKind = Literal["prompt", "compact", "continue"]

_RESULT_ERRORS: Final = {
    "error_max_turns": "max-turns",
    "error_max_budget_usd": "max-budget",
    "error_during_execution": "execution",
    "error_max_structured_output_retries": "structured-output",
}


@attrs.define
class _Waiter:
    """A callback of the SDK waiting for the host's answer."""

    tool_use_id: str
    event: anyio.Event = attrs.field(factory=anyio.Event)
    answer: ApprovalAnswer | ResultAnswer | None = None

    def settle(self, answer: ApprovalAnswer | ResultAnswer) -> None:
        if self.answer is None:
            self.answer = answer
        self.event.set()


_ids = itertools.count(1)


class ClaudeCodeTurn:
    """A running Claude Code turn (see the module docstring).

    Attributes:
        kind: ``prompt``, ``compact`` or ``continue``.
        view: the bookkeeping the projection reads (denials, host calls, aliases).
    """

    def __init__(self, session: ClaudeCodeSession, kind: TurnKind) -> None:
        self._session = session
        self.kind: TurnKind = kind
        self.view = TurnView(host_server=HOST_SERVER)
        self._readonly = self.view.readonly()
        self._send, self._recv = anyio.create_memory_object_stream[tuple[str, Any]](math.inf)
        self._approvals: dict[str, _Waiter] = {}
        self._host_waiters: dict[str, _Waiter] = {}
        self._open: dict[str, PendingCall] = {}
        self._seen: set[str] = set()
        self._parked: list[object] = []
        self._replay: dict[str, PendingCall] = {}
        self._outbox: collections.deque[object] = collections.deque()
        self._prelude: Callable[[], Awaitable[None]] | None = None
        self._api_error: tuple[str, str] | None = None
        self._awaiting_due = False
        self._ended = False
        self.finished = False
        self.aborted = False
        self.suspended = False

    # -- feeding (called by the session) --------------------------------------------------

    def deliver(self, message: object) -> None:
        """Queue one SDK message."""
        if not self._ended:
            self._send.send_nowait(("message", message))

    def runtime_exited(self, error: BaseException | None) -> None:
        """The CLI's message stream ended; ``error`` is why, ``None`` when closed on purpose.

        Callbacks still waiting for the host are released: nobody is left to answer.
        """
        if self._ended:
            return
        self._send.send_nowait(("exit", error))
        for waiter in self._approvals.values():
            waiter.settle(ApprovalAnswer(approved=False, reason="Claude Code exited"))
        for waiter in self._host_waiters.values():
            waiter.settle(ResultAnswer(content="Claude Code exited", is_error=True))

    def end(self, reason: Literal["aborted", "suspended"]) -> None:
        """End the turn now (abort or suspend); pending callbacks are released."""
        if self._ended:
            return
        self._send.send_nowait(("end", reason))
        self._ended = True
        for waiter in self._approvals.values():
            waiter.settle(ApprovalAnswer(approved=False, reason=f"the turn was {reason}"))
        for waiter in self._host_waiters.values():
            waiter.settle(ResultAnswer(content=f"the turn was {reason}", is_error=True))

    @property
    def done(self) -> bool:
        """True once the turn ended (finished, aborted or suspended), read to the end or not."""
        return self.finished or self._ended

    @property
    def waiting(self) -> bool:
        """True while Claude Code waits for an approval or a host tool result."""
        return bool(self._approvals or self._host_waiters)

    def pending_calls(self) -> dict[str, PendingCall]:
        """Calls of this turn without a recorded result, with any answer already given."""
        return {call_id: call.model_copy(deep=True) for call_id, call in self._open.items()}

    def _call_id(self, tool_use_id: str | None) -> str:
        return tool_use_id or f"call-{next(_ids)}"

    async def request_approval(self, tool_use_id: str | None, native_name: str, native_input: Any) -> ApprovalAnswer:
        """Ask the host about a built-in call and wait for the answer (the SDK callback)."""
        call_id = self._call_id(tool_use_id)
        stored = self._take_replay(call_id, native_name, native_input)
        if isinstance(stored, ApprovalAnswer):
            self._record_answer(call_id, stored)
            return stored
        identity = identify_tool(native_name, self.view.host_prefix)
        original = self.view.original_id(call_id)
        approval_id = f"approval-{original}"
        call = ToolCall(
            tool_call_id=original,
            tool_name=identity.tool_name,
            input=native_input,
            provider_executed=True,
            dynamic=identity.dynamic,
            native_tool_name=identity.native_tool_name,
            provider_metadata=identity.metadata() or {},
        )
        self._note_call(call_id, "builtin", native_name, None, native_input, approval_id)
        waiter = _Waiter(call_id)
        self._approvals[approval_id] = waiter
        self._send.send_nowait(("control", BuiltinApprovalRequest(approval_id, call)))
        try:
            await waiter.event.wait()
        finally:
            self._approvals.pop(approval_id, None)
        answer = waiter.answer
        assert isinstance(answer, ApprovalAnswer)
        return answer

    async def request_host_result(self, tool_use_id: str | None, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Hand a host tool call to the host and wait for its result (the MCP handler)."""
        call_id = self._call_id(tool_use_id)
        native_name = f"{self.view.host_prefix}{tool_name}"
        self.view.host_calls[call_id] = tool_name
        stored = self._take_replay(call_id, native_name, arguments)
        if isinstance(stored, ResultAnswer):
            self._record_answer(call_id, stored)
            return ToolOutput(stored.content, stored.is_error)
        original = self.view.original_id(call_id)
        identity = identify_tool(native_name, self.view.host_prefix)
        call = ToolCall(
            tool_call_id=original,
            tool_name=tool_name,
            input=arguments,
            native_tool_name=native_name,
            provider_metadata=identity.metadata() or {},
        )
        self._note_call(call_id, "host", native_name, tool_name, arguments, None)
        waiter = _Waiter(call_id)
        self._host_waiters[original] = waiter
        self._send.send_nowait(("control", HostToolCall(call)))
        try:
            await waiter.event.wait()
        finally:
            self._host_waiters.pop(original, None)
        answer = waiter.answer
        assert isinstance(answer, ResultAnswer)
        return ToolOutput(answer.content, answer.is_error)

    # -- the AdapterTurn protocol -----------------------------------------------------------

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`~harness_core.BuiltinApprovalRequest`.

        A denial's ``reason`` (or :data:`DEFAULT_DENIAL`) is what the model reads.

        Raises:
            KeyError: ``approval_id`` is not pending in this turn (the message lists those that are).
        """
        waiter = self._approvals.get(approval_id)
        if waiter is None:
            raise KeyError(f"no pending approval {approval_id!r} in this Claude Code turn "
                           f"(pending: {sorted(self._approvals) or 'none'})")
        answer = ApprovalAnswer(approved=approved, reason=None if approved else (reason or DEFAULT_DENIAL))
        self._record_answer(waiter.tool_use_id, answer)
        waiter.settle(answer)

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`~harness_core.HostToolCall` with the host's output.

        Raises:
            KeyError: ``tool_call_id`` is not waiting for a result in this turn.
        """
        waiter = self._host_waiters.get(tool_call_id)
        if waiter is None:
            raise KeyError(f"no host tool call {tool_call_id!r} waits for a result in this Claude Code turn "
                           f"(waiting: {sorted(self._host_waiters) or 'none'})")
        answer = ResultAnswer(content=output.content, is_error=output.is_error)
        self._record_answer(waiter.tool_use_id, answer)
        waiter.settle(answer)

    async def abort(self) -> None:
        """Stop the turn: Claude Code is interrupted and its whole process tree killed."""
        if self._ended:
            return
        self.aborted = True
        await self._session._abort_turn(self)
        self.end("aborted")

    async def events(self) -> AsyncIterator[object]:
        """SDK messages (as :class:`ClaudeCodeEvent`), control events and parts, then one :class:`TurnEnd`.

        May be called again after an earlier iterator was abandoned (at a pause, say): it
        carries on where the previous one stopped, losing nothing.
        """
        if self._prelude is not None:
            try:
                await self._prelude()
            except Exception as error:
                message = f"could not continue the Claude Code turn: {error}"
                self.finished = self._ended = True
                self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type="continue-failed"))
            self._prelude = None
        while True:
            while self._outbox:
                yield self._outbox.popleft()
            if self.finished:
                return
            item: tuple[str, Any] | None = None
            if self._awaiting_due and not self._parked:
                with anyio.move_on_after(SETTLE_SECONDS):
                    item = await self._recv.receive()
                if item is None:
                    self._awaiting_due = False
                    if self.waiting:
                        self._outbox.append(AwaitingAnswers())
                    continue
            elif self._parked:
                with anyio.move_on_after(PARK_SECONDS):
                    item = await self._recv.receive()
                if item is None:
                    self._outbox.extend(self._parked)
                    self._parked = []
                    continue
            else:
                item = await self._recv.receive()
            kind, payload = item
            if kind == "message":
                self._on_message(payload)
            elif kind == "control":
                self._awaiting_due = True
                if self._control_call_id(payload) in self._seen:
                    self._outbox.append(payload)
                else:
                    self._parked.append(payload)
            elif kind == "exit":
                self._on_exit(payload)
            elif kind == "end" and not self.finished:
                self.finished = True
                status: Any = "aborted" if payload == "aborted" else (
                    "awaiting-tool-result" if self._host_waiters else "awaiting-approval")
                self._outbox.append(TurnEnd(finish_reason=status))

    # -- internals --------------------------------------------------------------------------

    @staticmethod
    def _control_call_id(control: object) -> str:
        if isinstance(control, BuiltinApprovalRequest | HostToolCall):
            return control.call.tool_call_id
        return ""

    def _note_call(self, call_id: str, kind: Literal["builtin", "host"], native_name: str,
                   tool_name: str | None, native_input: Any, approval_id: str | None) -> None:
        call = self._open.get(call_id)
        if call is None:
            call = self._open[call_id] = PendingCall(
                kind=kind, native_name=native_name, tool_name=tool_name, input=native_input
            )
        call.kind, call.tool_name, call.asked = kind, tool_name, True
        if approval_id is not None:
            call.approval_id = approval_id

    def _record_answer(self, call_id: str, answer: ApprovalAnswer | ResultAnswer) -> None:
        """Keep the host's answer on the open call; a denial also goes to the projection's view."""
        if isinstance(answer, ApprovalAnswer) and not answer.approved:
            self.view.denied[call_id] = answer.reason or DEFAULT_DENIAL
        call = self._open.get(call_id)
        if call is not None:
            call.answer = answer

    def _take_replay(self, call_id: str, native_name: str, native_input: Any) -> ApprovalAnswer | ResultAnswer | None:
        if not self._replay:
            return None
        original = self.view.aliases.get(call_id, call_id)
        entry = self._replay.pop(original, None)
        if entry is None:
            entry_id = self._match_replay(native_name, native_input)
            if entry_id is None:
                return None
            entry = self._replay.pop(entry_id)
            self.view.aliases[call_id] = entry_id
        self.view.replayed.add(call_id)
        self.view.replaying = bool(self._replay)
        return entry.answer

    def _match_replay(self, native_name: str, native_input: Any) -> str | None:
        wanted = dumps_input(native_input)
        for call_id, call in self._replay.items():
            if call.native_name == native_name and dumps_input(call.input) == wanted:
                return call_id
        return None

    def arm_replay(self, calls: dict[str, PendingCall]) -> None:
        """Continue by re-running: answer repeats of ``calls`` from their stored answers."""
        self._replay = dict(calls)
        self.view.replaying = bool(calls)

    def fail_now(self, message: str, error_type: str) -> None:
        """End the turn before it started: its only event is an error :class:`TurnEnd`."""
        self.finished = self._ended = True
        self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type=error_type))

    def add_late_part(self, part: Part) -> None:
        """A part to yield before anything from the runtime (continuations)."""
        self._outbox.append(part)

    def set_prelude(self, prelude: Callable[[], Awaitable[None]]) -> None:
        """Work to do when the host starts reading events (continuations)."""
        self._prelude = prelude

    def expect_approval(self, approval_id: str, call_id: str) -> None:
        """Register an approval restored from suspended state (answered with ``submit_approval``)."""
        self._approvals[approval_id] = _Waiter(call_id)

    def expect_result(self, call_id: str) -> None:
        """Register a host call restored from suspended state (answered with ``submit_tool_result``)."""
        self._host_waiters[call_id] = _Waiter(call_id)
        self.view.host_calls[call_id] = ""

    def restore_calls(self, calls: dict[str, PendingCall]) -> None:
        """Adopt the open calls of a suspended turn."""
        self._open = {call_id: call.model_copy(deep=True) for call_id, call in calls.items()}

    async def wait_for_answers(self) -> None:
        """Wait until every restored approval and host call has been answered."""
        for waiter in [*self._approvals.values(), *self._host_waiters.values()]:
            await waiter.event.wait()
        self._approvals.clear()
        self._host_waiters.clear()

    def _on_message(self, message: object) -> None:
        from claude_agent_sdk import (
            AssistantMessage,
            ResultMessage,
            SystemMessage,
            TextBlock,
            ToolResultBlock,
            ToolUseBlock,
            UserMessage,
        )

        if isinstance(message, SystemMessage) and message.subtype == "init":
            session_id = message.data.get("session_id")
            if isinstance(session_id, str):
                self._session.note_claude_session(session_id)
        elif isinstance(message, AssistantMessage):
            if message.error is not None and message.parent_tool_use_id is None:
                text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
                self._api_error = (text or f"Claude Code API error: {message.error}",
                                   API_ERROR_TYPES.get(message.error, "api"))
            for block in message.content:
                if not isinstance(block, ToolUseBlock):
                    continue
                self._seen.add(block.id)
                if message.parent_tool_use_id is None:
                    identity = identify_tool(block.name, self.view.host_prefix)
                    self._open.setdefault(block.id, PendingCall(
                        kind="host" if identity.host else "builtin", native_name=block.name,
                        tool_name=identity.tool_name if identity.host else None, input=block.input,
                    ))
                    if self._replay:
                        self._adopt_repeat(block.id, block.name, block.input)
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    self._open.pop(block.tool_use_id, None)
        if isinstance(message, ResultMessage):
            if message.session_id:
                self._session.note_claude_session(message.session_id)
            self._outbox.append(ClaudeCodeEvent(message, self._readonly))
            self._outbox.extend(self._unrepeated_parts())
            self.finished = self._ended = True
            self._outbox.append(self._turn_end(message))
            return
        self._outbox.append(ClaudeCodeEvent(message, self._readonly))
        if self._parked:
            ready = [c for c in self._parked if self._control_call_id(c) in self._seen]
            self._parked = [c for c in self._parked if c not in ready]
            self._outbox.extend(ready)

    def _adopt_repeat(self, call_id: str, native_name: str, native_input: Any) -> None:
        """A re-run produced ``call_id``: if it repeats a stored call, alias it to the original."""
        if call_id in self._replay:
            self.view.replayed.add(call_id)
            return
        original = self._match_replay(native_name, native_input)
        if original is not None:
            self.view.aliases[call_id] = original
            self.view.replayed.add(call_id)

    def _unrepeated_parts(self) -> list[Part]:
        parts: list[Part] = []
        for call_id, call in self._replay.items():
            identity = identify_tool(call.native_name, self.view.host_prefix)
            if isinstance(call.answer, ApprovalAnswer) and not call.answer.approved:
                parts.append(ToolOutputDeniedPart(tool_call_id=call_id, tool_name=identity.tool_name,
                                                  reason=call.answer.reason, provider_executed=True))
            elif call.kind == "builtin":
                parts.append(ToolErrorPart(
                    tool_call_id=call_id, tool_name=identity.tool_name, input=call.input,
                    error="Claude Code did not repeat this call when the suspended turn was continued; it never ran.",
                    provider_executed=True, provider_metadata=identity.metadata(),
                ))
        self._replay.clear()
        self.view.replaying = False
        return parts

    def _turn_end(self, result: Any) -> TurnEnd:
        cost = self._session.turn_cost(result.total_cost_usd)
        usage = usage_from(result.usage, cost_usd=cost) if result.usage is not None else Usage(cost_usd=cost)
        if self.aborted:
            return TurnEnd(finish_reason="aborted", usage=usage)
        if not result.is_error:
            reason = finish_reason(result.stop_reason)
            return TurnEnd(finish_reason="stop" if reason in ("unknown", "tool-calls") else reason, usage=usage)
        if self._api_error is not None:
            text, error_type = self._api_error
            return TurnEnd(finish_reason="error", usage=usage, error=text, error_type=error_type)
        errors = [e for e in (result.errors or []) if isinstance(e, str)]
        text = "; ".join(errors) or (result.result or "").strip() or result.subtype
        error_type = _RESULT_ERRORS.get(result.subtype, "runtime")
        return TurnEnd(finish_reason="length" if error_type == "max-turns" else "error",
                       usage=usage, error=f"Claude Code: {text}", error_type=error_type)

    def _on_exit(self, error: BaseException | None) -> None:
        if self.finished:
            return
        self.finished = self._ended = True
        if self.aborted:
            self._outbox.append(TurnEnd(finish_reason="aborted"))
            return
        message = self._session.describe_exit(error)
        self._session.runtime_error = message
        self._outbox.append(TurnEnd(finish_reason="error", error=message, error_type="runtime-crashed"))
