"""OpenAI Chat Completions: parse requests, encode chunk streams, completions and errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core.testing._openai_common import openai_error_body, parse_arguments
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
from harness_core.testing._wire import CREATED, Codec, Reply, SseEvent, chunks, json_dumps

__all__ = ["CHAT"]


def _call_view(raw: Mapping[str, Any]) -> ToolCallView:
    call_id = str(raw.get("id", ""))
    custom = raw.get("custom")
    if raw.get("type") == "custom" and isinstance(custom, Mapping):
        return ToolCallView(
            id=call_id, name=str(custom.get("name", "")), arguments=custom.get("input")
        )
    function = raw.get("function")
    function = function if isinstance(function, Mapping) else {}
    return ToolCallView(
        id=call_id,
        name=str(function.get("name", "")),
        arguments=parse_arguments(function.get("arguments")),
    )


def _parse(body: Mapping[str, Any]) -> Conversation:
    system: list[str] = []
    messages: list[Message] = []
    for raw in body.get("messages") or []:
        if not isinstance(raw, Mapping):
            continue
        role = raw.get("role")
        text = content_text(raw.get("content"))
        if role in ("system", "developer"):
            system.append(text)
        elif role == "assistant":
            calls = tuple(
                _call_view(call)
                for call in raw.get("tool_calls") or []
                if isinstance(call, Mapping)
            )
            messages.append(Message("assistant", text, tool_calls=calls))
        elif role in ("tool", "function"):
            call_id = str(raw.get("tool_call_id") or raw.get("name") or "")
            images = content_images(raw.get("content"))
            messages.append(Message("tool", tool_results=(ToolResultView(call_id, text, images=images),)))
        else:
            messages.append(Message("user", text, images=content_images(raw.get("content"))))
    raw_tools = body.get("tools") or []
    tools: list[OfferedTool] = []
    for tool in raw_tools:
        if not isinstance(tool, Mapping):
            continue
        if tool.get("type") == "custom" and isinstance(tool.get("custom"), Mapping):
            tools.append(OfferedTool(name=str(tool["custom"].get("name", "")), kind="custom"))
        elif isinstance(tool.get("function"), Mapping):
            function = tool["function"]
            tools.append(
                OfferedTool(
                    name=str(function.get("name", "")), input_schema=function.get("parameters")
                )
            )
    return Conversation(
        system=join_system(system),
        messages=normalize_messages(messages),
        tools=tuple(tools),
        has_tools=bool(raw_tools),
    )


def _finish_reason(reply: Reply) -> str:
    return "tool_calls" if reply.calls else "stop"


def _usage(reply: Reply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
    }


def _completion_id(reply: Reply) -> str:
    return f"chatcmpl-scripted-{reply.index:04d}"


def _wire_call(reply: Reply, position: int) -> dict[str, Any]:
    call = reply.calls[position]
    if call.kind == "custom":
        return {
            "id": call.id,
            "type": "custom",
            "custom": {"name": call.name, "input": call.arguments},
        }
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def _stream(reply: Reply, size: int) -> list[SseEvent]:
    def chunk(label: str, delta: dict[str, Any], finish: str | None = None) -> SseEvent:
        payload = {
            "id": _completion_id(reply),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return SseEvent(label=label, data=json_dumps(payload))

    events = [chunk("role", {"role": "assistant", "content": ""})]
    events += [
        chunk("reasoning", {"reasoning_content": c}) for c in chunks(reply.reasoning or "", size)
    ]
    events += [chunk("content", {"content": c}) for c in chunks(reply.text or "", size)]
    for position, call in enumerate(reply.calls):
        head = {"index": position, **_wire_call(reply, position)}
        if call.kind == "custom":
            events.append(chunk("tool_call", {"tool_calls": [head]}))
            continue
        head["function"] = {"name": call.name, "arguments": ""}
        events.append(chunk("tool_call", {"tool_calls": [head]}))
        events += [
            chunk("tool_call", {"tool_calls": [{"index": position, "function": {"arguments": c}}]})
            for c in chunks(call.arguments, size)
        ]
    events.append(chunk("finish", {}, _finish_reason(reply)))
    options = reply.request.body.get("stream_options")
    if isinstance(options, Mapping) and options.get("include_usage"):
        payload = {
            "id": _completion_id(reply),
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model,
            "choices": [],
            "usage": _usage(reply),
        }
        events.append(SseEvent(label="usage", data=json_dumps(payload)))
    events.append(SseEvent(label="[DONE]", data="[DONE]"))
    return events


def _body(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.calls:
        message["tool_calls"] = [_wire_call(reply, i) for i in range(len(reply.calls))]
    return {
        "id": _completion_id(reply),
        "object": "chat.completion",
        "created": CREATED,
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _finish_reason(reply),
            }
        ],
        "usage": _usage(reply),
    }


def _stream_error(
    reply: Reply, status: int, error_type: str | None, message: str, position: int
) -> SseEvent:
    return SseEvent(label="error", data=json_dumps(openai_error_body(status, error_type, message)))


CHAT = Codec(
    parse=_parse,
    stream=_stream,
    body=_body,
    error_body=openai_error_body,
    stream_error=_stream_error,
    call_id_prefix="call",
)
"""The OpenAI Chat Completions codec (``POST */chat/completions``)."""
