"""Parts to the AI SDK UI message stream protocol v1 (what ``useChat`` reads).

Protocol source: the ``ai`` package's ``uiMessageChunkSchema``
(``packages/ai/src/ui-message-stream/ui-message-chunks.ts``) and its
``processUIMessageStream`` reader, pinned in ``frontend/package.json``. The stream is
server-sent events: each chunk is ``data: <json>\\n\\n`` and the stream ends with
``data: [DONE]\\n\\n``; the response carries :data:`UI_MESSAGE_STREAM_HEADERS`.

Part (full stream) -> chunk (UI stream):

==========================  ===============================================================
``start``                   ``start`` (``messageId``)
``start-step`` / ``finish-step``  the same
``text-*`` / ``reasoning-*``  the same, ``text`` -> ``delta``
``tool-input-start/-delta``  ``tool-input-start`` / ``tool-input-delta`` (``inputTextDelta``)
``tool-call``               ``tool-input-available`` (``tool-input-error`` when invalid)
``tool-result``             ``tool-output-available`` (``preliminary`` kept)
``tool-error``              ``tool-output-error``
``tool-approval-request``   ``tool-approval-request`` (``approvalId``, ``toolCallId``;
                            ``isAutomatic: true`` for a policy's automatic request)
``tool-approval-response``  the same (``approved``, ``reason``)
``tool-output-denied``      the same
``finish``                  ``finish`` (``finishReason`` mapped, harness details in
                            ``messageMetadata.harness``)
``error``                   ``error`` with a masked ``errorText`` (detail to ``on_error``)
``abort``                   ``abort``
``raw``                     nothing
==========================  ===============================================================

The reader rejects an output, approval or denial for a call it has not seen, so the
converter first sends ``tool-input-available`` for a call that is new to this response
(a continued turn's result, say) unless the caller says the client already has it.

An automatic pair (a ``denied`` status or a policy denial, ``is_automatic``) maps the
way the AI SDK's own ``toUIMessageStream`` maps it: ``tool-approval-request`` with
``isAutomatic: true``, then ``tool-approval-response`` (``approved: false``), then
``tool-output-denied``; the reader ends that call in ``output-denied`` and marks its
approval automatic.

A continuation answering client-side tools: the core does not repeat the results the
consumer supplied (one step per continuation), so the converter sends a
``tool-output-available`` / ``tool-output-error`` for each of the request's own outputs
right after ``start`` (``client_results``), and the reader moves those calls to
``output-available`` even when the client's copy of the message predates them.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import attrs

from harness_core import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputStartPart,
    ToolOutput,
    ToolOutputDeniedPart,
    ToolResultContinuation,
    ToolResultPart,
)

__all__ = [
    "DONE",
    "UI_MESSAGE_STREAM_HEADERS",
    "ErrorReport",
    "UIStreamConverter",
    "encode_chunk",
    "map_finish_reason",
]

UI_MESSAGE_STREAM_HEADERS: Final[Mapping[str, str]] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream (protocol v1)."""

DONE: Final = b"data: [DONE]\n\n"
"""The event that ends every UI message stream."""

_UI_FINISH_REASONS: Final = frozenset({"stop", "length", "content-filter", "tool-calls", "error", "other"})
_DYNAMIC_TOOLS: Final = frozenset({FILE_CHANGE_TOOL, COMPACTION_TOOL})
_ERROR_TYPE: Final = re.compile(r"^[a-z][a-z0-9-]{0,39}$")


def encode_chunk(chunk: Mapping[str, Any]) -> bytes:
    """One chunk as a server-sent event: ``b"data: {json}\\n\\n"`` (UTF-8, compact JSON)."""
    return b"data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def map_finish_reason(reason: str) -> str:
    """A harness finish reason as a UI ``finishReason``: the AI SDK values pass; a pause
    for an approval or a tool result is ``tool-calls``; ``aborted`` and unknown values are
    ``other``."""
    if reason in _UI_FINISH_REASONS:
        return reason
    if reason in ("awaiting-approval", "awaiting-tool-result"):
        return "tool-calls"
    return "other"


@attrs.frozen
class ErrorReport:
    """What the host's ``on_error`` callback receives; the client only gets ``masked``.

    Attributes:
        reference: a random id shown to the user (``err-<12 hex>``) to find this report.
        message: the detailed message (an ``error`` part's text, or ``str(exception)``).
        error_type: the part's ``error_type`` (``runtime-crashed``, ...), or the
            exception's class name.
        chat_id: the chat the error happened in, when known.
        exception: the exception, when one was raised (not for ``error`` parts).
        masked: the ``errorText`` sent to the client.
    """

    reference: str
    message: str
    error_type: str | None
    chat_id: str | None
    exception: BaseException | None
    masked: str


ErrorCallback = Callable[[ErrorReport], None]


def mask_error(message: str, error_type: str | None, *, chat_id: str | None,
               on_error: ErrorCallback | None, exception: BaseException | None = None) -> str:
    """The masked ``errorText`` for an error; the detail goes to ``on_error`` only.

    The masked text names the error type when it is a short lowercase category
    (``runtime-crashed``), never the message. A raising callback is ignored (the
    stream must still end).
    """
    reference = f"err-{secrets.token_hex(6)}"
    kind = error_type if error_type and _ERROR_TYPE.match(error_type) else None
    masked = f"The agent run failed{f' ({kind})' if kind else ''}. Reference: {reference}."
    if on_error is not None:
        with contextlib.suppress(Exception):
            on_error(ErrorReport(reference, message, error_type, chat_id, exception, masked))
    return masked


def _compact(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


class UIStreamConverter:
    """Turn the parts of one result slice into UI message stream chunks.

    Args:
        message_id: the assistant message id sent with ``start`` (a continuation passes
            the id of the assistant message it continues).
        known_calls: tool call ids the client already shows (from the request's
            messages); no ``tool-input-available`` is repeated for them.
        known_approvals: approval ids the client already has.
        client_results: the client-side tool outputs this request continues the turn
            with; each becomes a ``tool-output-available`` (``tool-output-error`` when
            ``is_error``) right after ``start``.
        chat_id: passed to ``on_error`` reports.
        on_error: receives each :class:`ErrorReport` (detail stays on the server).

    :meth:`convert` is pure apart from the converter's memory of the calls it has seen
    (and the error callback); feed it the parts in order.
    """

    def __init__(self, *, message_id: str | None = None, known_calls: Iterable[str] = (),
                 known_approvals: Iterable[str] = (), client_results: Iterable[ToolResultContinuation] = (),
                 chat_id: str | None = None, on_error: ErrorCallback | None = None) -> None:
        self.message_id = message_id
        self._client_results = tuple(client_results)
        self._calls: set[str] = set(known_calls)
        self._approvals: set[str] = set(known_approvals)
        self._chat_id = chat_id
        self._on_error = on_error
        self._dynamic: set[str] = set()

    def convert(self, part: Part) -> list[dict[str, Any]]:
        """The chunks for one part (zero or more), in order."""
        handler = _HANDLERS.get(type(part))
        return handler(self, part) if handler is not None else []

    def error_chunk(self, exception: BaseException) -> dict[str, Any]:
        """A masked ``error`` chunk for an exception raised while streaming."""
        text = mask_error(str(exception), type(exception).__name__, chat_id=self._chat_id,
                          on_error=self._on_error, exception=exception)
        return {"type": "error", "errorText": text}

    # -- tool calls ---------------------------------------------------------------------

    def _is_dynamic(self, call_id: str, tool_name: str, dynamic: bool | None) -> bool | None:
        if dynamic or tool_name in _DYNAMIC_TOOLS or call_id in self._dynamic:
            self._dynamic.add(call_id)
            return True
        return None

    def _input_available(self, call_id: str, tool_name: str, input_: Any, provider_executed: bool | None,
                         dynamic: bool | None, provider_metadata: Any) -> dict[str, Any]:
        self._calls.add(call_id)
        return _compact(type="tool-input-available", toolCallId=call_id, toolName=tool_name,
                        input=input_ if input_ is not None else {}, providerExecuted=provider_executed,
                        dynamic=self._is_dynamic(call_id, tool_name, dynamic), providerMetadata=provider_metadata)

    def _ensure_call(self, call_id: str, tool_name: str, input_: Any, provider_executed: bool | None,
                     dynamic: bool | None) -> list[dict[str, Any]]:
        if call_id in self._calls:
            return []
        return [self._input_available(call_id, tool_name, input_, provider_executed, dynamic, None)]

    def _tool_input_start(self, part: ToolInputStartPart) -> list[dict[str, Any]]:
        self._calls.add(part.id)
        return [_compact(type="tool-input-start", toolCallId=part.id, toolName=part.tool_name,
                         providerExecuted=part.provider_executed,
                         dynamic=self._is_dynamic(part.id, part.tool_name, part.dynamic))]

    def _tool_input_delta(self, part: ToolInputDeltaPart) -> list[dict[str, Any]]:
        if part.id not in self._calls:
            return []
        return [{"type": "tool-input-delta", "toolCallId": part.id, "inputTextDelta": part.delta}]

    def _tool_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        data = part.to_json()
        if part.invalid:
            self._calls.add(part.tool_call_id)
            return [_compact(type="tool-input-error", toolCallId=part.tool_call_id, toolName=part.tool_name,
                             input=data.get("input"), providerExecuted=part.provider_executed,
                             dynamic=self._is_dynamic(part.tool_call_id, part.tool_name, part.dynamic),
                             errorText=part.error or "invalid tool input")]
        return [self._input_available(part.tool_call_id, part.tool_name, data.get("input"),
                                      part.provider_executed, part.dynamic, data.get("providerMetadata"))]

    def _tool_result(self, part: ToolResultPart) -> list[dict[str, Any]]:
        data = part.to_json()
        chunks = self._ensure_call(part.tool_call_id, part.tool_name, data.get("input"),
                                   part.provider_executed, part.dynamic)
        chunks.append(_compact(type="tool-output-available", toolCallId=part.tool_call_id,
                               output=data.get("output"), providerExecuted=part.provider_executed,
                               dynamic=self._is_dynamic(part.tool_call_id, part.tool_name, part.dynamic),
                               preliminary=part.preliminary, providerMetadata=data.get("providerMetadata")))
        return chunks

    def _tool_error(self, part: ToolErrorPart) -> list[dict[str, Any]]:
        data = part.to_json()
        chunks = self._ensure_call(part.tool_call_id, part.tool_name, data.get("input"),
                                   part.provider_executed, part.dynamic)
        chunks.append(_compact(type="tool-output-error", toolCallId=part.tool_call_id, errorText=part.error,
                               providerExecuted=part.provider_executed,
                               dynamic=self._is_dynamic(part.tool_call_id, part.tool_name, part.dynamic)))
        return chunks

    def _approval_request(self, part: ToolApprovalRequestPart) -> list[dict[str, Any]]:
        call = part.tool_call
        chunks = [] if call.tool_call_id in self._calls else self._tool_call(call)
        self._approvals.add(part.approval_id)
        chunks.append(_compact(type="tool-approval-request", approvalId=part.approval_id,
                               toolCallId=call.tool_call_id, isAutomatic=True if part.is_automatic else None))
        return chunks

    def _approval_response(self, part: ToolApprovalResponsePart) -> list[dict[str, Any]]:
        if part.approval_id not in self._approvals:
            return []  # the reader fails on an approval it never saw; the outcome follows anyway
        return [_compact(type="tool-approval-response", approvalId=part.approval_id, approved=part.approved,
                         reason=part.reason, providerExecuted=part.provider_executed)]

    def _denied(self, part: ToolOutputDeniedPart) -> list[dict[str, Any]]:
        chunks = self._ensure_call(part.tool_call_id, part.tool_name, None, part.provider_executed, None)
        chunks.append({"type": "tool-output-denied", "toolCallId": part.tool_call_id})
        return chunks

    # -- lifecycle, text --------------------------------------------------------------------

    def _start(self, part: StartPart) -> list[dict[str, Any]]:
        chunks = [_compact(type="start", messageId=self.message_id)]
        results, self._client_results = self._client_results, ()
        chunks.extend(self._client_result(result) for result in results)
        return chunks

    def _client_result(self, result: ToolResultContinuation) -> dict[str, Any]:
        self._calls.add(result.tool_call_id)
        if result.is_error:
            text = result.output if isinstance(result.output, str) else json.dumps(result.output, default=str)
            return {"type": "tool-output-error", "toolCallId": result.tool_call_id, "errorText": text}
        return {"type": "tool-output-available", "toolCallId": result.tool_call_id, "output": _jsonable(result.output)}

    def _finish(self, part: FinishPart) -> list[dict[str, Any]]:
        usage = part.total_usage.model_dump(mode="json", by_alias=True, exclude_none=True)
        return [{"type": "finish", "finishReason": map_finish_reason(part.finish_reason),
                 "messageMetadata": {"harness": {"finishReason": part.finish_reason, "usage": usage}}}]

    def _error(self, part: ErrorPart) -> list[dict[str, Any]]:
        text = mask_error(part.error, part.error_type, chat_id=self._chat_id, on_error=self._on_error)
        return [{"type": "error", "errorText": text}]


def _jsonable(value: Any) -> Any:
    # A ToolOutput from a host that built the continuation itself; request outputs are JSON.
    return value.to_json() if isinstance(value, ToolOutput) else value


def _text(kind: str) -> Callable[[UIStreamConverter, Any], list[dict[str, Any]]]:
    def convert(self: UIStreamConverter, part: Any) -> list[dict[str, Any]]:
        chunk: dict[str, Any] = {"type": kind, "id": part.id}
        if kind.endswith("-delta"):
            chunk["delta"] = part.text
        metadata = getattr(part, "provider_metadata", None)
        if metadata:
            chunk["providerMetadata"] = metadata
        return [chunk]

    return convert


def _plain(kind: str) -> Callable[[UIStreamConverter, Any], list[dict[str, Any]]]:
    return lambda self, part: [{"type": kind}]


def _abort(self: UIStreamConverter, part: AbortPart) -> list[dict[str, Any]]:
    return [_compact(type="abort", reason=part.reason)]


_HANDLERS: Final[dict[type[Part], Callable[[UIStreamConverter, Any], list[dict[str, Any]]]]] = {
    StartPart: UIStreamConverter._start,
    StartStepPart: _plain("start-step"),
    FinishStepPart: _plain("finish-step"),
    TextStartPart: _text("text-start"),
    TextDeltaPart: _text("text-delta"),
    TextEndPart: _text("text-end"),
    ReasoningStartPart: _text("reasoning-start"),
    ReasoningDeltaPart: _text("reasoning-delta"),
    ReasoningEndPart: _text("reasoning-end"),
    ToolInputStartPart: UIStreamConverter._tool_input_start,
    ToolInputDeltaPart: UIStreamConverter._tool_input_delta,
    ToolCallPart: UIStreamConverter._tool_call,
    ToolResultPart: UIStreamConverter._tool_result,
    ToolErrorPart: UIStreamConverter._tool_error,
    ToolApprovalRequestPart: UIStreamConverter._approval_request,
    ToolApprovalResponsePart: UIStreamConverter._approval_response,
    ToolOutputDeniedPart: UIStreamConverter._denied,
    FinishPart: UIStreamConverter._finish,
    ErrorPart: UIStreamConverter._error,
    AbortPart: _abort,
}
