"""The OpenAI Chat Completions wire, checked by the official ``openai`` SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec, Usage
from harness_core.testing.pytest_plugin import ScriptedServerFactory

BASH: Any = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a shell command.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
}
READ: Any = {
    "type": "function",
    "function": {
        "name": "read",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
USER: Any = [
    {"role": "system", "content": "You are pi."},
    {"role": "user", "content": "look around"},
]


def client(server: ScriptedModelServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="sk-secret", max_retries=0)


def two_calls() -> ModelTurn:
    return ModelTurn(
        "Checking.",
        tool_calls=[
            ToolCallSpec("bash", {"command": "ls"}),
            ToolCallSpec("read", {"path": "README.md"}, id="call_read"),
        ],
        reasoning="Two things to check.",
        usage=Usage(input_tokens=50, output_tokens=20, cached_tokens=10, reasoning_tokens=5),
    )


def test_streaming_tool_calls_and_usage_chunk_parse(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server([two_calls()], chunk_size=4)
    with client(server).chat.completions.stream(
        model="fake-model",
        messages=USER,
        tools=[BASH, READ],
        stream_options={"include_usage": True},
    ) as stream:
        kinds = [event.type for event in stream]
        completion = stream.get_final_completion()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking."
    calls = choice.message.tool_calls or []
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("call_t0_0", "bash", {"command": "ls"}),
        ("call_read", "read", {"path": "README.md"}),
    ]
    assert "tool_calls.function.arguments.delta" in kinds
    assert completion.model == "fake-model"
    usage: Any = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (50, 20, 70)
    assert usage.prompt_tokens_details.cached_tokens == 10
    assert usage.completion_tokens_details.reasoning_tokens == 5
    assert getattr(choice.message, "reasoning_content", None) == "Two things to check."


def test_raw_chunks_end_with_usage_and_done(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([two_calls()])
    body = {"model": "m", "stream": True, "messages": USER, "tools": [BASH, READ]}
    plain = httpx.post(server.openai_base_url + "/chat/completions", json=body).text
    with_usage = httpx.post(
        server.openai_base_url + "/chat/completions",
        json={**body, "stream_options": {"include_usage": True}},
    ).text
    data = [line[6:] for line in with_usage.splitlines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    usage_chunk = json.loads(data[-2])
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["prompt_tokens"] == 50
    assert '"usage"' not in plain
    assert "event:" not in plain


def test_non_streaming_completion_parses(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([two_calls(), "All good."])
    sdk = client(server)
    first = sdk.chat.completions.create(model="m", messages=USER, tools=[BASH, READ])
    calls: Any = first.choices[0].message.tool_calls
    history: Any = [
        *USER,
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": calls[0].id, "content": "README.md"},
        {"role": "tool", "tool_call_id": calls[1].id, "content": "# Title"},
    ]
    second = sdk.chat.completions.create(model="m", tools=[BASH, READ], messages=history)
    assert first.choices[0].finish_reason == "tool_calls"
    assert [c.function.name for c in calls] == ["bash", "read"]
    assert second.choices[0].message.content == "All good."
    assert second.choices[0].finish_reason == "stop"
    assert server.last_tool_result() == "# Title"
    assert server.model_requests[1].tool_result_count == 2
    assert server.model_requests[1].system == "You are pi."


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
        (429, openai.RateLimitError),
        (400, openai.BadRequestError),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
def test_http_faults_surface_as_sdk_errors(
    status: int,
    error_class: type[openai.APIStatusError],
    stream: bool,
    scripted_model_server: ScriptedServerFactory,
) -> None:
    script = Script(
        turns=(ModelTurn("hi"),), faults=(Fault.http_error(status, at=0, message="boom"),)
    )
    server = scripted_model_server(script)
    with pytest.raises(error_class) as caught:
        client(server).chat.completions.create(
            model="m", messages=USER, tools=[BASH], stream=stream
        )
    assert caught.value.status_code == status
    body: Any = caught.value.body
    assert body["message"] == "boom"
    assert "type" in body


def test_cut_stream_raises(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["a fairly long answer to cut"], faults=[Fault.cut_stream(2)])
    with pytest.raises(openai.APIConnectionError):
        stream = client(server).chat.completions.create(
            model="m", messages=USER, tools=[BASH], stream=True
        )
        list(stream)


def test_in_stream_error_raises_api_error(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hello"], faults=[Fault.stream_error(1)])
    with pytest.raises(openai.APIError, match="scripted fault"):
        stream = client(server).chat.completions.create(
            model="m", messages=USER, tools=[BASH], stream=True
        )
        list(stream)


def test_dropping_done_still_ends_the_stream(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hello"], faults=[Fault.drop("[DONE]")])
    stream = client(server).chat.completions.create(
        model="m", messages=USER, tools=[BASH], stream=True
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == "hello"
