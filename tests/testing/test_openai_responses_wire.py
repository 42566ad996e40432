"""The OpenAI Responses wire, checked by the official ``openai`` SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec, Usage
from harness_core.testing.pytest_plugin import ScriptedServerFactory

EXEC: Any = {
    "type": "function",
    "name": "exec_command",
    "description": "Run a command.",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
APPLY_PATCH: Any = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Apply a patch.",
    "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
}
MCP: Any = {
    "type": "namespace",
    "name": "mcp__calc",
    "description": "calc server",
    "tools": [
        {"type": "function", "name": "add", "parameters": {"type": "object", "properties": {}}}
    ],
}
TOOLS = [EXEC, APPLY_PATCH, MCP]
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch"
INPUT: Any = [
    {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "base prompt"}],
    },
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "do it"}]},
]


def client(server: ScriptedModelServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="sk-secret", max_retries=0)


def codex_turn() -> ModelTurn:
    return ModelTurn(
        "On it.",
        reasoning="Plan: run, patch, add.",
        tool_calls=[
            ToolCallSpec("bash", {"command": "ls"}),
            ToolCallSpec("apply_patch", PATCH),
            ToolCallSpec("mcp__calc__add", {"a": 1, "b": 2}),
        ],
        usage=Usage(input_tokens=200, output_tokens=40, cached_tokens=150, reasoning_tokens=12),
    )


def test_streaming_function_custom_and_namespaced_calls_parse(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server([codex_turn()], chunk_size=5)
    with client(server).responses.stream(model="gpt-5.5", input=INPUT, tools=TOOLS) as stream:
        types = [event.type for event in stream]
        response = stream.get_final_response()
    reasoning, message, call, custom, namespaced = response.output
    assert reasoning.type == "reasoning"
    assert reasoning.summary[0].text == "Plan: run, patch, add."
    assert message.type == "message"
    assert response.output_text == "On it."
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments), call.call_id) == (
        "exec_command",
        {"cmd": "ls"},
        "call_t0_0",
    )
    assert custom.type == "custom_tool_call"
    assert (custom.name, custom.input) == ("apply_patch", PATCH)
    assert namespaced.type == "function_call"
    assert (namespaced.namespace, namespaced.name) == ("mcp__calc", "add")
    assert json.loads(namespaced.arguments) == {"a": 1, "b": 2}
    assert response.model == "gpt-5.5"
    assert response.status == "completed"
    usage: Any = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (200, 40, 240)
    assert usage.input_tokens_details.cached_tokens == 150
    assert usage.output_tokens_details.reasoning_tokens == 12
    for expected in (
        "response.created",
        "response.output_item.added",
        "response.reasoning_summary_text.delta",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.output_item.done",
    ):
        assert expected in types, expected
    assert types[-1] == "response.completed"
    assert server.model_requests[0].system == "base prompt"


def test_raw_events_carry_sequence_numbers(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([codex_turn()])
    text = httpx.post(
        server.openai_base_url + "/responses",
        json={"model": "m", "stream": True, "input": INPUT, "tools": TOOLS},
    ).text
    payloads = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))
    assert payloads[0]["type"] == "response.created"
    done_items = [p["item"] for p in payloads if p["type"] == "response.output_item.done"]
    assert [item["type"] for item in done_items] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
        "function_call",
    ]


def test_non_streaming_response_and_follow_up_parse(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server([codex_turn(), "Finished."])
    sdk = client(server)
    first = sdk.responses.create(model="m", input=INPUT, tools=TOOLS)
    history: Any = [*INPUT, *(item.model_dump(exclude_none=True) for item in first.output)]
    history += [
        {"type": "function_call_output", "call_id": "call_t0_0", "output": "a.txt"},
        {"type": "custom_tool_call_output", "call_id": "call_t0_1", "output": "patched"},
        {
            "type": "function_call_output",
            "call_id": "call_t0_2",
            "output": [{"type": "input_text", "text": "3"}],
        },
    ]
    second = sdk.responses.create(model="m", input=history, tools=TOOLS)
    assert [item.type for item in first.output] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
        "function_call",
    ]
    assert second.output_text == "Finished."
    request = server.model_requests[1]
    assert request.turn_index == 1
    assert request.tool_result_count == 3
    assert server.last_tool_result() == "3"


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (500, openai.InternalServerError),
        (429, openai.RateLimitError),
        (401, openai.AuthenticationError),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
def test_http_faults_surface_as_sdk_errors(
    status: int,
    error_class: type[openai.APIStatusError],
    stream: bool,
    scripted_model_server: ScriptedServerFactory,
) -> None:
    script = Script(turns=(ModelTurn("hi"),), faults=(Fault.http_error(status, at=[0, 1]),))
    server = scripted_model_server(script)
    sdk = client(server)
    for _ in range(2):
        with pytest.raises(error_class):
            sdk.responses.create(model="m", input="x", tools=[EXEC], stream=stream)
    assert sdk.responses.create(model="m", input="x", tools=[EXEC]).output_text == "hi"
    assert server.model_calls == 3


def test_retry_after_header(scripted_model_server: ScriptedServerFactory) -> None:
    fault = Fault.http_error(429, retry_after=2.5, error_type="rate_limit_exceeded")
    server = scripted_model_server(["x"], faults=[fault])
    response = httpx.post(server.openai_base_url + "/responses", json={"model": "m", "input": "x"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2.5"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_cut_stream_raises(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([codex_turn()], faults=[Fault.cut_stream(6)])
    with (
        pytest.raises(openai.APIConnectionError),
        client(server).responses.stream(model="m", input=INPUT, tools=TOOLS) as stream,
    ):
        stream.get_final_response()


def test_dropped_completion_is_noticed_by_the_sdk(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server(["hi"], faults=[Fault.drop("response.completed")])
    with (
        pytest.raises(RuntimeError, match=r"response\.completed"),
        client(server).responses.stream(model="m", input="x", tools=[EXEC]) as stream,
    ):
        stream.get_final_response()


def test_stream_error_sends_response_failed(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hi"], faults=[Fault.stream_error(2)])
    events = list(client(server).responses.create(model="m", input="x", tools=[EXEC], stream=True))
    assert [event.type for event in events] == [
        "response.created",
        "response.in_progress",
        "response.failed",
    ]
    failed: Any = events[-1]
    assert failed.response.status == "failed"
    assert failed.response.error.code == "server_error"
