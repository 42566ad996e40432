"""Turn a request into a reply: parse it, pick the scripted turn, bind tool calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from harness_core.testing._anthropic import ANTHROPIC
from harness_core.testing._openai_chat import CHAT
from harness_core.testing._openai_responses import RESPONSES
from harness_core.testing._request import ModelRequest, OfferedTool, WireFormat
from harness_core.testing._script import ModelTurn, Script, ToolCallSpec
from harness_core.testing._tools import adapt_arguments, is_common_tool_name, resolve_tool_name
from harness_core.testing._wire import Codec, Reply, ResolvedCall, ResolvedUsage, json_dumps

__all__ = ["CODECS", "TurnSource", "build_reply", "choose_turn", "parse_request"]

CODECS: Mapping[WireFormat, Codec] = {"anthropic": ANTHROPIC, "chat": CHAT, "responses": RESPONSES}

TurnSource = Literal["script", "final", "side", "responder"]
"""Where an answer came from: a script turn, the final text, the side answer, the callable."""


def parse_request(fmt: WireFormat, body: Mapping[str, Any], index: int) -> ModelRequest:
    """Build the format-neutral :class:`ModelRequest` for model call ``index``."""
    conversation = CODECS[fmt].parse(body)
    model = body.get("model")
    return ModelRequest(
        format=fmt,
        model=model if isinstance(model, str) and model else "fake-model",
        stream=bool(body.get("stream", False)),
        system=conversation.system,
        messages=conversation.messages,
        tools=conversation.tools,
        index=index,
        body=body,
        has_tools=conversation.has_tools,
    )


def choose_turn(script: Script, request: ModelRequest) -> tuple[ModelTurn, TurnSource]:
    """Pick the turn answering ``request``.

    The script's ``respond`` callable is asked first (a str is a text turn,
    ``None`` falls through). A tool-less request gets the side answer when
    ``script.toolless == "side"``. Otherwise turn ``request.turn_index`` of the
    script, or the final text past its end.
    """
    if script.respond is not None:
        answer = script.respond(request)
        if isinstance(answer, str):
            return ModelTurn(answer), "responder"
        if answer is not None:
            return answer, "responder"
    if request.is_side_request and script.toolless == "side":
        return ModelTurn(script.side_answer), "side"
    position = request.turn_index
    if position < len(script.turns):
        return script.turns[position], "script"
    return ModelTurn(script.final_text), "final"


def _offered(request: ModelRequest, name: str) -> OfferedTool | None:
    for tool in request.tools:
        if tool.name == name:
            return tool
    return None


def _bind(spec: ToolCallSpec, request: ModelRequest) -> OfferedTool:
    """The offered tool ``spec`` calls; an ad-hoc function tool for an ``unoffered`` call."""
    if spec.unoffered:
        return _offered(request, spec.name) or OfferedTool(name=spec.name)
    tool = _offered(request, resolve_tool_name(spec.name, request.tool_names))
    if tool is None:  # pragma: no cover - resolve_tool_name only returns offered names
        raise AssertionError(f"resolved tool {spec.name!r} is not in the request")
    return tool


def _arguments_text(spec: ToolCallSpec, tool: OfferedTool) -> str:
    arguments = spec.arguments
    if isinstance(arguments, str):
        return arguments
    if tool.kind == "custom":
        if set(arguments) == {"input"} and isinstance(arguments["input"], str):
            return arguments["input"]
        return json_dumps(arguments)
    if is_common_tool_name(spec.name) and not spec.unoffered:
        arguments = adapt_arguments(arguments, tool.input_schema)
    return json_dumps(arguments)


def build_reply(turn: ModelTurn, request: ModelRequest, body_size: int) -> Reply:
    """Bind ``turn``'s tool calls to the request's offered tools and fill in usage.

    Raises :class:`ToolNotOfferedError` for a call naming no offered tool (unless the
    call is marked ``unoffered``).
    """
    prefix = CODECS[request.format].call_id_prefix
    calls: list[ResolvedCall] = []
    for number, spec in enumerate(turn.tool_calls):
        tool = _bind(spec, request)
        calls.append(
            ResolvedCall(
                id=spec.id or f"{prefix}_t{request.turn_index}_{number}",
                name=tool.wire_name,
                arguments=_arguments_text(spec, tool),
                kind=tool.kind,
                namespace=tool.namespace,
            )
        )
    written = (
        len(turn.text or "") + len(turn.reasoning or "") + sum(len(c.arguments) for c in calls)
    )
    scripted = turn.usage
    usage = ResolvedUsage(
        input_tokens=(
            scripted.input_tokens
            if scripted and scripted.input_tokens is not None
            else max(1, body_size // 4)
        ),
        output_tokens=(
            scripted.output_tokens
            if scripted and scripted.output_tokens is not None
            else max(1, written // 4)
        ),
        cached_tokens=scripted.cached_tokens if scripted else 0,
        cache_creation_tokens=scripted.cache_creation_tokens if scripted else 0,
        reasoning_tokens=scripted.reasoning_tokens if scripted else 0,
    )
    return Reply(
        request=request, text=turn.text, reasoning=turn.reasoning, calls=tuple(calls), usage=usage
    )
