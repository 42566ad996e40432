"""Anthropic Messages: parse requests, encode SSE streams, JSON messages and errors."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from harness_core.testing._request import (
    Conversation,
    Message,
    OfferedTool,
    ToolCallView,
    ToolResultView,
    content_images,
    content_text,
    join_system,
    normalize_messages,
)
from harness_core.testing._wire import Codec, Reply, SseEvent, chunks, json_dumps

__all__ = ["ANTHROPIC"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _parse(body: Mapping[str, Any]) -> Conversation:
    system = [content_text(body.get("system"))]
    messages: list[Message] = []
    for raw in body.get("messages") or []:
        if not isinstance(raw, Mapping):
            continue
        role = raw.get("role")
        content = raw.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if role == "system":
            system.append(content_text(content))
        elif role == "assistant":
            calls = tuple(
                ToolCallView(
                    id=str(b.get("id", "")), name=str(b.get("name", "")), arguments=b.get("input")
                )
                for b in blocks
                if isinstance(b, Mapping) and b.get("type") in ("tool_use", "server_tool_use")
            )
            messages.append(Message("assistant", content_text(blocks), tool_calls=calls))
        else:
            results = tuple(
                ToolResultView(
                    call_id=str(b.get("tool_use_id", "")),
                    text=content_text(b.get("content")),
                    is_error=bool(b.get("is_error", False)),
                    images=content_images(b.get("content")),
                )
                for b in blocks
                if isinstance(b, Mapping) and b.get("type") == "tool_result"
            )
            if results:
                messages.append(Message("tool", tool_results=results))
            text = content_text(blocks)
            if text or not results:
                messages.append(Message("user", text))
    raw_tools = body.get("tools") or []
    tools = tuple(
        OfferedTool(name=t["name"], input_schema=t.get("input_schema"))
        for t in raw_tools
        if isinstance(t, Mapping) and isinstance(t.get("name"), str)
    )
    return Conversation(
        system=join_system(system),
        messages=normalize_messages(messages),
        tools=tools,
        has_tools=bool(raw_tools),
    )


def _signature(reasoning: str) -> str:
    return "scripted-" + hashlib.sha256(reasoning.encode()).hexdigest()[:40]


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.calls else "end_turn"


def _usage(reply: Reply) -> dict[str, int]:
    usage = reply.usage
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_tokens,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
    }


def _message_id(reply: Reply) -> str:
    return f"msg_scripted_{reply.index:04d}"


def _stream(reply: Reply, size: int) -> list[SseEvent]:
    start_usage = {**_usage(reply), "output_tokens": 1}
    events = [
        SseEvent.typed(
            {
                "type": "message_start",
                "message": {
                    "id": _message_id(reply),
                    "type": "message",
                    "role": "assistant",
                    "model": reply.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            }
        ),
        SseEvent.typed({"type": "ping"}),
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(
            SseEvent.typed({"type": "content_block_start", "index": index, "content_block": start})
        )
        for delta in deltas:
            events.append(
                SseEvent.typed({"type": "content_block_delta", "index": index, "delta": delta})
            )
        events.append(SseEvent.typed({"type": "content_block_stop", "index": index}))
        index += 1

    if reply.reasoning is not None:
        deltas = [{"type": "thinking_delta", "thinking": c} for c in chunks(reply.reasoning, size)]
        deltas.append({"type": "signature_delta", "signature": _signature(reply.reasoning)})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if reply.text or (reply.text is not None and not reply.calls):
        text = reply.text or ""
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": c} for c in chunks(text, size)],
        )
    for call in reply.calls:
        block(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": c} for c in chunks(call.arguments, size)],
        )
    events.append(
        SseEvent.typed(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                "usage": _usage(reply),
            }
        )
    )
    events.append(SseEvent.typed({"type": "message_stop"}))
    return events


def _body(reply: Reply) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append(
            {
                "type": "thinking",
                "thinking": reply.reasoning,
                "signature": _signature(reply.reasoning),
            }
        )
    if reply.text or (reply.text is not None and not reply.calls):
        content.append({"type": "text", "text": reply.text or ""})
    for call in reply.calls:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments_object()}
        )
    return {
        "id": _message_id(reply),
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(reply),
    }


def _error_body(status: int, error_type: str | None, message: str) -> dict[str, Any]:
    kind = (
        error_type
        or _ERROR_TYPES.get(status)
        or ("api_error" if status >= 500 else "invalid_request_error")
    )
    return {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": "req_scripted",
    }


def _stream_error(
    reply: Reply, status: int, error_type: str | None, message: str, position: int
) -> SseEvent:
    payload = _error_body(status, error_type, message)
    return SseEvent(label="error", data=json_dumps(payload), event="error")


ANTHROPIC = Codec(
    parse=_parse,
    stream=_stream,
    body=_body,
    error_body=_error_body,
    stream_error=_stream_error,
    call_id_prefix="toolu",
)
"""The Anthropic Messages codec (``POST /v1/messages``)."""
