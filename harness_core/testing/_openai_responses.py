"""OpenAI Responses: parse requests, encode event streams, response objects and errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core.testing._openai_common import openai_error_body, parse_arguments
from harness_core.testing._request import (
    Conversation,
    ImageView,
    Message,
    OfferedTool,
    ToolCallView,
    ToolResultView,
    content_images,
    content_text,
    join_system,
    normalize_messages,
)
from harness_core.testing._wire import (
    CREATED,
    Codec,
    Reply,
    ResolvedCall,
    SseEvent,
    chunks,
    json_dumps,
)

__all__ = ["RESPONSES", "flat_tool_name"]

_CALL_TYPES = ("function_call", "custom_tool_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def flat_tool_name(namespace: str, name: str) -> str:
    """The flat name of tool ``name`` inside ``namespace``: ``mcp__srv`` + ``add`` -> ``mcp__srv__add``."""
    if name.startswith(namespace):
        return name
    return namespace + ("" if namespace.endswith("__") else "__") + name


def _output_text(output: Any) -> str:
    if isinstance(output, Mapping):
        if "content" in output:
            return content_text(output["content"])
        return json_dumps(output)
    return content_text(output)


def _output_images(output: Any) -> tuple[ImageView, ...]:
    return content_images(output["content"] if isinstance(output, Mapping) and "content" in output else output)


def _item_message(item: Mapping[str, Any], system: list[str]) -> Message | None:
    kind = item.get("type") or ("message" if "role" in item else "")
    if kind == "message":
        role = item.get("role")
        text = content_text(item.get("content"))
        if role in ("system", "developer"):
            system.append(text)
            return None
        return Message("assistant" if role == "assistant" else "user", text)
    call_id = str(item.get("call_id") or item.get("id") or "")
    if kind in _CALL_TYPES:
        arguments = (
            item.get("input")
            if kind == "custom_tool_call"
            else parse_arguments(item.get("arguments"))
        )
        namespace = item.get("namespace")
        view = ToolCallView(
            id=call_id,
            name=str(item.get("name", "")),
            arguments=arguments,
            namespace=namespace if isinstance(namespace, str) else None,
        )
        return Message("assistant", tool_calls=(view,))
    if kind in _OUTPUT_TYPES or kind.endswith("_output"):
        return Message(
            "tool", tool_results=(ToolResultView(call_id, _output_text(item.get("output")),
                                                 images=_output_images(item.get("output"))),)
        )
    if kind == "reasoning" or kind.endswith("_call"):
        return Message("assistant")
    return None


def _offered(raw_tools: list[Any]) -> tuple[OfferedTool, ...]:
    tools: list[OfferedTool] = []
    for tool in raw_tools:
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            continue
        if tool.get("type") == "namespace":
            namespace = tool["name"]
            for inner in tool.get("tools") or []:
                if isinstance(inner, Mapping) and isinstance(inner.get("name"), str):
                    tools.append(
                        OfferedTool(
                            name=flat_tool_name(namespace, inner["name"]),
                            kind="custom" if inner.get("type") == "custom" else "function",
                            namespace=namespace,
                            native_name=inner["name"],
                            input_schema=inner.get("parameters"),
                        )
                    )
        elif tool.get("type") == "custom":
            tools.append(OfferedTool(name=tool["name"], kind="custom"))
        else:
            tools.append(OfferedTool(name=tool["name"], input_schema=tool.get("parameters")))
    return tuple(tools)


def _parse(body: Mapping[str, Any]) -> Conversation:
    system = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    raw_input = body.get("input")
    messages: list[Message] = []
    if isinstance(raw_input, str):
        messages.append(Message("user", raw_input))
    for item in raw_input if isinstance(raw_input, list) else []:
        if isinstance(item, Mapping):
            message = _item_message(item, system)
            if message is not None:
                messages.append(message)
    raw_tools = body.get("tools") or []
    return Conversation(
        system=join_system(system),
        messages=normalize_messages(messages),
        tools=_offered(raw_tools),
        has_tools=bool(raw_tools),
    )


def _usage(reply: Reply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


def _response(
    reply: Reply, status: str, output: list[dict[str, Any]], usage: bool
) -> dict[str, Any]:
    return {
        "id": f"resp_scripted_{reply.index:04d}",
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "model": reply.model,
        "output": output,
        "usage": _usage(reply) if usage else None,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
    }


def _call_item(reply: Reply, call: ResolvedCall, position: int, done: bool) -> dict[str, Any]:
    suffix = f"{reply.index:04d}_{position}"
    item: dict[str, Any]
    if call.kind == "custom":
        item = {
            "type": "custom_tool_call",
            "id": f"ctc_scripted_{suffix}",
            "call_id": call.id,
            "name": call.name,
            "input": call.arguments if done else "",
        }
    else:
        item = {
            "type": "function_call",
            "id": f"fc_scripted_{suffix}",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments if done else "",
        }
    item["status"] = "completed" if done else "in_progress"
    if call.namespace is not None:
        item["namespace"] = call.namespace
    return item


def _reasoning_item(reply: Reply, done: bool) -> dict[str, Any]:
    summary = [{"type": "summary_text", "text": reply.reasoning or ""}] if done else []
    return {"type": "reasoning", "id": f"rs_scripted_{reply.index:04d}", "summary": summary}


def _message_item(reply: Reply, done: bool) -> dict[str, Any]:
    content = [_text_part(reply.text or "")] if done else []
    return {
        "type": "message",
        "id": f"msg_scripted_{reply.index:04d}",
        "role": "assistant",
        "status": "completed" if done else "in_progress",
        "content": content,
    }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _has_message(reply: Reply) -> bool:
    return bool(reply.text) or (reply.text is not None and not reply.calls)


def _output(reply: Reply) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        output.append(_reasoning_item(reply, True))
    if _has_message(reply):
        output.append(_message_item(reply, True))
    output += [_call_item(reply, call, i, True) for i, call in enumerate(reply.calls)]
    return output


def _item_events(
    position: int, added: dict[str, Any], done: dict[str, Any], inner: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``output_item.added``, the item's own events, then ``output_item.done``."""
    return [
        {"type": "response.output_item.added", "output_index": position, "item": added},
        *inner,
        {"type": "response.output_item.done", "output_index": position, "item": done},
    ]


def _reasoning_events(ref: dict[str, Any], text: str, size: int) -> list[dict[str, Any]]:
    ref = {**ref, "summary_index": 0}
    return [
        {
            "type": "response.reasoning_summary_part.added",
            **ref,
            "part": {"type": "summary_text", "text": ""},
        },
        *(
            {"type": "response.reasoning_summary_text.delta", **ref, "delta": c}
            for c in chunks(text, size)
        ),
        {"type": "response.reasoning_summary_text.done", **ref, "text": text},
        {
            "type": "response.reasoning_summary_part.done",
            **ref,
            "part": {"type": "summary_text", "text": text},
        },
    ]


def _text_events(ref: dict[str, Any], text: str, size: int) -> list[dict[str, Any]]:
    ref = {**ref, "content_index": 0}
    return [
        {"type": "response.content_part.added", **ref, "part": _text_part("")},
        *(
            {"type": "response.output_text.delta", **ref, "delta": c, "logprobs": []}
            for c in chunks(text, size)
        ),
        {"type": "response.output_text.done", **ref, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **ref, "part": _text_part(text)},
    ]


def _call_events(ref: dict[str, Any], call: ResolvedCall, size: int) -> list[dict[str, Any]]:
    kind, key = (
        ("custom_tool_call_input", "input")
        if call.kind == "custom"
        else ("function_call_arguments", "arguments")
    )
    return [
        *(
            {"type": f"response.{kind}.delta", **ref, "delta": c}
            for c in chunks(call.arguments, size)
        ),
        {"type": f"response.{kind}.done", **ref, key: call.arguments, "name": call.name},
    ]


def _stream(reply: Reply, size: int) -> list[dict[str, Any]]:
    """Every Responses event for ``reply``, before sequence numbers are added."""
    final = _output(reply)
    started: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        started.append(_reasoning_item(reply, False))
    if _has_message(reply):
        started.append(_message_item(reply, False))
    started += [_call_item(reply, call, n, False) for n, call in enumerate(reply.calls)]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(reply, "in_progress", [], False)},
        {"type": "response.in_progress", "response": _response(reply, "in_progress", [], False)},
    ]
    calls = iter(reply.calls)
    for position, added in enumerate(started):
        ref = {"item_id": added["id"], "output_index": position}
        if added["type"] == "reasoning":
            inner = _reasoning_events(ref, reply.reasoning or "", size)
        elif added["type"] == "message":
            inner = _text_events(ref, reply.text or "", size)
        else:
            inner = _call_events(ref, next(calls), size)
        events += _item_events(position, added, final[position], inner)
    events.append(
        {"type": "response.completed", "response": _response(reply, "completed", final, True)}
    )
    return events


def _sequenced(reply: Reply, size: int) -> list[SseEvent]:
    return [
        SseEvent.typed({**payload, "sequence_number": number})
        for number, payload in enumerate(_stream(reply, size))
    ]


def _body(reply: Reply) -> dict[str, Any]:
    return _response(reply, "completed", _output(reply), True)


def _stream_error(
    reply: Reply, status: int, error_type: str | None, message: str, position: int
) -> SseEvent:
    error = openai_error_body(status, error_type, message)["error"]
    response = _response(reply, "failed", [], False)
    response["error"] = {"code": error["code"] or error["type"], "message": message}
    return SseEvent.typed(
        {"type": "response.failed", "response": response, "sequence_number": position}
    )


RESPONSES = Codec(
    parse=_parse,
    stream=_sequenced,
    body=_body,
    error_body=openai_error_body,
    stream_error=_stream_error,
    call_id_prefix="call",
)
"""The OpenAI Responses codec (``POST */responses``)."""
