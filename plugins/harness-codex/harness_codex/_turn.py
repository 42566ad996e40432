"""One running Codex turn: app-server messages in, stream parts and control events out.

Protocol (codex-rs ``app-server`` README, codex 0.171.0): after ``turn/start`` the server
streams ``item/started`` / ``item/completed`` (thread items), ``item/agentMessage/delta``,
``thread/tokenUsage/updated``, ``error`` and finally ``turn/completed``; it sends requests
``item/commandExecution/requestApproval``, ``item/fileChange/requestApproval`` (answered
``{"decision": "accept" | "decline"}``) and ``item/tool/call`` for dynamic (host) tools
(answered ``{"contentItems": [...], "success": bool}``). Any other server request is
refused (fail closed).

Approvals become :class:`~harness_core.BuiltinApprovalRequest` (the core emits the call and
approval parts), host tool calls :class:`~harness_core.HostToolCall`; each batch is followed
by :class:`~harness_core.AwaitingAnswers`. Built-in calls no approval announced are
projected here (``tool-call`` then the result).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PendingRequest,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StepBoundaries,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCall,
    ToolOutput,
    TurnEnd,
    TurnStateError,
    Usage,
)

from . import _protocol as p
from ._items import (
    builtin_call,
    call_part,
    compaction_parts,
    file_change_parts,
    mcp_tool,
    result_part,
)
from ._rich import content_items_for
from ._rpc import AppServer, Closed, Incoming, RpcError, ServerClosedError
from ._usage import error_type as _error_type
from ._usage import usage_between
from ._withheld import WithheldCalls

__all__ = ["CodexTurn", "TurnLedger", "usage_between"]


class TurnLedger:
    """What a turn has asked the host and not yet had answered (for ``suspend_turn``).

    ``approvals``: approval id -> ``(request id, call)``; ``tools``: call id -> ``(request id, call)``.
    """

    def __init__(self) -> None:
        self.approvals: dict[str, tuple[int | str, ToolCall]] = {}
        self.tools: dict[str, tuple[int | str, ToolCall]] = {}


class CodexTurn:
    """A turn of a Codex thread (see the module docs).

    Args:
        server: the session's app-server; thread_id / turn_id: the turn's ids (``None``: the
            first ``turn/started``, for compaction).
        usage_before: the thread's token totals when the turn started.
        interrupt_timeout: seconds :meth:`abort` waits for ``turn/completed``.
        announce_on_start: the thread asks no approvals (``never``): emit a built-in's
            ``tool-call`` at ``item/started``, so it is seen while it runs.
        withheld: projects the calls to inactive host tools (see ``_withheld``).
    """

    def __init__(self, server: AppServer, thread_id: str, turn_id: str | None, *,
                 usage_before: p.TokenUsageBreakdown | None, interrupt_timeout: float,
                 announce_on_start: bool = False, withheld: WithheldCalls | None = None) -> None:
        self.server = server
        self.thread_id = thread_id
        self.turn_id = turn_id
        self.ledger = TurnLedger()
        self.usage_before = usage_before
        self.usage_after: p.TokenUsageBreakdown | None = usage_before
        self._interrupt_timeout = interrupt_timeout
        self._announce_on_start = announce_on_start
        self._announced: dict[str, ToolCall] = {}
        self._started: dict[str, Mapping[str, Any]] = {}
        self._text_open: set[str] = set()
        self._error: tuple[str, str | None] | None = None
        self._end: TurnEnd | None = None
        self._done = asyncio.Event()
        self._aborted = False
        self._mcp_requests: set[str] = set()
        self._asked: dict[str, bool] = {}  # approval and call ids asked about -> reused (then declined)
        self._withheld = withheld or WithheldCalls(frozenset())
        self._steps = StepBoundaries(response_signal=True)  # stop conditions: thread/tokenUsage/updated ends a response
        self.crash: str | None = None

    @property
    def ended(self) -> bool:
        """True once ``turn/completed`` (or the process exit) was seen."""
        return self._end is not None

    async def events(self) -> AsyncIterator[object]:
        """Parts and control events, ending with exactly one :class:`TurnEnd`."""
        while self._end is None:
            message = await self.server.inbox.get()
            for event in await self._handle(message):
                yield event
        yield self._end

    def pending_requests(self) -> list[PendingRequest]:
        """The app-server's open requests, as it sent them (approval params, ``item/tool/call``)."""
        return [*(PendingRequest(kind="approval", call=call, approval_id=approval_id)
                  for approval_id, (_, call) in self.ledger.approvals.items()),
                *(PendingRequest(kind="tool-result", call=call) for _, call in self.ledger.tools.values())]

    # -- answers ----------------------------------------------------------------------------

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer an approval request: ``accept`` or ``decline``. Raises ``KeyError`` for an unknown id."""
        request_id, call = self.ledger.approvals.pop(approval_id)
        if self._asked.get(approval_id) or self._asked.get(call.tool_call_id):
            approved, reason = False, "Refused: another call reused this call id."
        if not approved:
            self._steps.call_finished(call.tool_call_id)
        if approval_id in self._mcp_requests:
            self._mcp_requests.discard(approval_id)
            answer = p.McpServerElicitationRequestResponse(action="accept" if approved else "decline")
            result: dict[str, Any] = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
        else:
            result = {"decision": "accept" if approved else "decline"}
        with contextlib.suppress(ServerClosedError):
            await self.server.respond(request_id, result)
            if not approved and reason:
                await self._steer(f"The {call.tool_name} call {call.tool_call_id} was denied: {reason}")

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer an ``item/tool/call``. Raises ``KeyError`` for an unknown call id."""
        request_id, _ = self.ledger.tools.pop(tool_call_id)
        self._steps.call_finished(tool_call_id)
        response = p.DynamicToolCallResponse.model_validate(
            {"contentItems": content_items_for(output), "success": not output.is_error})
        with contextlib.suppress(ServerClosedError):
            await self.server.respond(request_id, response.model_dump(mode="json"))

    async def steer(self, text: str) -> None:
        """Steering (:class:`~harness_core.SteerableTurn`): ``turn/steer`` adds ``text`` as user
        input to this running turn (``expectedTurnId`` guards against a turn that just ended).

        Raises:
            TurnStateError: the turn is over, or the app-server refused the steer.
        """
        if self._end is not None or self.turn_id is None:
            raise TurnStateError("codex: the turn is over; send a new prompt instead of steering it")
        try:
            await self.server.request("turn/steer", {
                "threadId": self.thread_id, "expectedTurnId": self.turn_id,
                "input": [{"type": "text", "text": text, "text_elements": []}]})
        except (RpcError, ServerClosedError) as error:
            raise TurnStateError(f"codex: turn/steer failed: {error}") from error

    async def _steer(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.server.request("turn/steer", {
                "threadId": self.thread_id, "expectedTurnId": self.turn_id,
                "input": [{"type": "text", "text": text, "text_elements": []}]})

    async def abort(self) -> None:
        """``turn/interrupt``, then wait for ``turn/completed``; kill the process group if it does not come."""
        if self._end is not None or self.turn_id is None:
            return
        self._aborted = True
        try:
            await asyncio.wait_for(self._interrupt_and_drain(), self._interrupt_timeout)
        except (TimeoutError, ServerClosedError, Exception):
            await self.server.kill()
            self._finish(TurnEnd(finish_reason="aborted"))

    async def _interrupt_and_drain(self) -> None:
        for request_id, _ in [*self.ledger.approvals.values(), *self.ledger.tools.values()]:
            with contextlib.suppress(ServerClosedError):
                await self.server.respond_error(request_id, -32000, "the turn was aborted")
        self.ledger = TurnLedger()
        await self.server.request("turn/interrupt", {"threadId": self.thread_id, "turnId": self.turn_id})
        # An interrupt leaves unified-exec sessions (commands still running in the background) alive.
        clean = p.ThreadBackgroundTerminalsCleanParams(threadId=self.thread_id)
        await self.server.request("thread/backgroundTerminals/clean", clean.model_dump(mode="json"))
        while self._end is None:
            get = asyncio.ensure_future(self.server.inbox.get())
            done = asyncio.ensure_future(self._done.wait())
            finished, _ = await asyncio.wait({get, done}, return_when=asyncio.FIRST_COMPLETED)
            if get in finished:
                await self._handle(get.result())
            else:
                get.cancel()
            done.cancel()

    def _finish(self, end: TurnEnd) -> None:
        if self._end is None:
            self._end = end
            self._done.set()

    # -- messages ---------------------------------------------------------------------------

    async def _handle(self, message: Incoming | Closed) -> list[object]:
        if isinstance(message, Closed):
            detail = message.stderr.strip().splitlines()[-1:] if message.stderr.strip() else []
            if not self._aborted:
                self.crash = f"codex app-server exited (code {message.returncode}){': ' + detail[0] if detail else ''}"
            self._finish(TurnEnd(finish_reason="aborted" if self._aborted else "error", error=self.crash,
                                 error_type=None if self._aborted else "runtime-crashed", usage=self._usage()))
            return []
        params = message.params
        if self.turn_id is None and message.method == "turn/started":
            self.turn_id = str((params.get("turn") or {}).get("id"))
        if params.get("turnId", self.turn_id) != self.turn_id and message.request_id is None:
            return []
        if message.request_id is not None:
            return await self._server_request(message)
        handler = _NOTIFICATIONS.get(message.method)
        return handler(self, params) if handler is not None else []

    async def _server_request(self, message: Incoming) -> list[object]:
        request_id = message.request_id
        assert request_id is not None
        params = message.params
        if params.get("turnId") not in (None, self.turn_id) or self._aborted:
            await self.server.respond_error(request_id, -32000, "not the running turn")
            return []
        if message.method == "item/commandExecution/requestApproval":
            approval = p.CommandExecutionRequestApprovalParams.model_validate(params)
            item = {**self._started.get(approval.itemId, {}), "type": "commandExecution", "id": approval.itemId,
                    "command": approval.command or "", "cwd": approval.cwd or "", "commandActions": [],
                    "status": "inProgress"}
            return [*self._steps.model_output(approval.itemId),
                    *(await self._ask(request_id, approval.approvalId or approval.itemId, item))]
        if message.method == "item/fileChange/requestApproval":
            file_approval = p.FileChangeRequestApprovalParams.model_validate(params)
            started = self._started.get(file_approval.itemId)
            item = dict(started) if started is not None else {
                "type": "fileChange", "id": file_approval.itemId, "changes": [], "status": "inProgress"}
            return [*self._steps.model_output(file_approval.itemId), *(await self._ask(request_id, file_approval.itemId, item))]
        if message.method == "mcpServer/elicitation/request":
            return await self._mcp_approval(request_id, params)
        if message.method == "item/tool/call":
            tool = p.DynamicToolCallParams.model_validate(params)
            call = ToolCall(tool_call_id=tool.callId, tool_name=tool.tool, input=tool.arguments)
            self.ledger.tools[tool.callId] = (request_id, call)
            return [*self._steps.model_output(tool.callId), HostToolCall(call), AwaitingAnswers()]
        await self.server.respond_error(request_id, -32601, f"harness-codex does not answer {message.method}")
        return []

    async def _mcp_approval(self, request_id: int | str, params: Mapping[str, Any]) -> list[object]:
        raw_meta = params.get("_meta")
        meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
        server, tool = params.get("serverName"), meta.get("tool_name")
        if meta.get("codex_approval_kind") != "mcp_tool_call" or not isinstance(tool, str):
            await self.server.respond(request_id, {"action": "decline", "content": None})  # fail closed
            return []
        started = [item for item in self._started.values() if item.get("type") == "mcpToolCall"
                   and item.get("server") == server and item.get("tool") == tool
                   and str(item.get("id")) not in self._announced]
        item = dict(started[-1]) if started else {
            "type": "mcpToolCall", "id": f"mcp-{request_id}", "server": server, "tool": tool,
            "arguments": meta.get("tool_params") or {}, "status": "inProgress"}
        return [*self._steps.model_output(str(item["id"])), *(await self._ask(request_id, str(item["id"]), item, mcp=True))]

    async def _ask(self, request_id: int | str, approval_id: str, item: Mapping[str, Any], *,
                   mcp: bool = False) -> list[object]:
        call = builtin_call(item)
        assert call is not None
        reused = any(key in self._asked for key in (approval_id, call.tool_call_id))
        self._asked.update(dict.fromkeys((approval_id, call.tool_call_id), reused))
        if reused:  # Codex routes an answer by call id: one answer could run either call, so both are declined
            await self.server.respond(request_id, {"action": "decline", "content": None} if mcp else {"decision": "decline"})
            return []
        self._announced[call.tool_call_id] = call
        self.ledger.approvals[approval_id] = (request_id, call)
        if mcp:
            self._mcp_requests.add(approval_id)
            return [BuiltinApprovalRequest(approval_id, call, mcp_tool(item)), AwaitingAnswers()]
        return [BuiltinApprovalRequest(approval_id, call), AwaitingAnswers()]

    def _item_started(self, params: Mapping[str, Any]) -> list[object]:
        item = params.get("item") or {}
        kind = item.get("type")
        if kind in ("agentMessage", "reasoning"):
            return list(self._steps.model_output())
        if kind == "dynamicToolCall":
            return list(self._steps.model_output(str(item.get("id"))))
        if kind not in ("commandExecution", "fileChange", "mcpToolCall", "webSearch"):
            return []
        boundary: list[object] = list(self._steps.model_output(str(item.get("id"))))
        self._started[str(item.get("id"))] = item
        call = builtin_call(item) if self._announce_on_start else None
        if call is None or call.tool_call_id in self._announced:
            return boundary
        self._announced[call.tool_call_id] = call
        return [*boundary, call_part(call)]

    def _item_completed(self, params: Mapping[str, Any]) -> list[object]:
        item = params.get("item") or {}
        kind = item.get("type")
        item_id = str(item.get("id"))
        self._steps.call_finished(item_id)
        if kind == "agentMessage":
            text = str(item.get("text") or "")
            if item_id in self._text_open:
                self._text_open.discard(item_id)
                return [TextEndPart(id=item_id)]
            return [*self._steps.model_output(), TextStartPart(id=item_id), TextDeltaPart(id=item_id, text=text),
                    TextEndPart(id=item_id)] if text else []
        if kind == "reasoning":
            reasoning = p.ReasoningThreadItem.model_validate(item)
            text = "\n".join([*(reasoning.summary or []), *(reasoning.content or [])])
            return [*self._steps.model_output(), ReasoningStartPart(id=item_id), ReasoningDeltaPart(id=item_id, text=text),
                    ReasoningEndPart(id=item_id)] if text else []
        if kind == "contextCompaction":
            return list(compaction_parts(item))
        call = builtin_call(item)
        if call is None:
            return []
        events: list[object] = []
        announced = self._announced.pop(item_id, None)
        if announced is None:
            events.append(call_part(call))
            announced = call
        final = result_part(announced, item)
        if final is not None:
            events.append(final)
        if kind == "fileChange":
            events += file_change_parts(item)
        return events

    def _raw_item(self, params: Mapping[str, Any]) -> list[object]:
        return self._withheld.raw_item(params.get("item") or {}, self._known)

    def _known(self, call_id: str) -> bool:
        return call_id in self._started or call_id in self._announced

    def _delta(self, params: Mapping[str, Any]) -> list[object]:
        delta = p.AgentMessageDeltaNotification.model_validate(params)
        events: list[object] = list(self._steps.model_output())
        if delta.itemId not in self._text_open:
            self._text_open.add(delta.itemId)
            events.append(TextStartPart(id=delta.itemId))
        events.append(TextDeltaPart(id=delta.itemId, text=delta.delta))
        return events

    def _token_usage(self, params: Mapping[str, Any]) -> list[object]:
        self.usage_after = p.ThreadTokenUsageUpdatedNotification.model_validate(params).tokenUsage.total
        self._steps.response_done()
        return []

    def _error_notification(self, params: Mapping[str, Any]) -> list[object]:
        error = p.ErrorNotification.model_validate(params)
        if not error.willRetry:
            self._error = (error.error.message, _error_type(error.error))
        return []

    def _completed(self, params: Mapping[str, Any]) -> list[object]:
        turn = p.TurnCompletedNotification.model_validate(params).turn
        if self.turn_id is not None and turn.id != self.turn_id:
            return []
        usage = self._usage()
        late = self._withheld.at_end(self._known)
        if turn.status == "interrupted":
            self._finish(TurnEnd(finish_reason="aborted", usage=usage))
        elif turn.status == "failed" or self._error is not None:
            message, kind = self._error or ((turn.error.message, _error_type(turn.error)) if turn.error
                                            else ("the Codex turn failed", None))
            self._finish(TurnEnd(finish_reason="error", error=message, error_type=kind, usage=usage))
        else:
            self._finish(TurnEnd(finish_reason="stop", usage=usage))
        return late

    def _usage(self) -> Usage:
        return usage_between(self.usage_before, self.usage_after) if self.usage_after is not None else Usage()


_NOTIFICATIONS = {
    "item/started": CodexTurn._item_started,
    "item/completed": CodexTurn._item_completed,
    "item/agentMessage/delta": CodexTurn._delta,
    "rawResponseItem/completed": CodexTurn._raw_item,
    "thread/tokenUsage/updated": CodexTurn._token_usage,
    "error": CodexTurn._error_notification,
    "turn/completed": CodexTurn._completed,
}
