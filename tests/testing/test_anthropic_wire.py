"""The Anthropic Messages wire, checked by the official ``anthropic`` SDK."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import pytest

from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec, Usage
from harness_core.testing.pytest_plugin import ScriptedServerFactory

BASH: Any = {
    "name": "Bash",
    "description": "Run a shell command.",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}
USER: Any = [{"role": "user", "content": "list the files"}]


def client(server: ScriptedModelServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="sk-secret", max_retries=0)


def tool_turn() -> ModelTurn:
    return ModelTurn(
        "Let me look.",
        tool_calls=[ToolCallSpec("bash", {"command": "ls -la"}, id="toolu_1")],
        reasoning="The user wants a listing.",
        usage=Usage(input_tokens=120, output_tokens=30, cached_tokens=100, cache_creation_tokens=7),
    )


def test_streaming_text_tool_call_and_thinking_parse(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server([tool_turn()], chunk_size=3)
    with client(server).messages.stream(
        model="claude-opus-5-5", max_tokens=100, messages=USER, tools=[BASH]
    ) as stream:
        texts = list(stream.text_stream)
        message = stream.get_final_message()
    assert "".join(texts) == "Let me look."
    assert len(texts) > 1
    thinking, text, tool = message.content
    assert thinking.type == "thinking"
    assert thinking.thinking == "The user wants a listing."
    assert thinking.signature
    assert text.type == "text"
    assert text.text == "Let me look."
    assert tool.type == "tool_use"
    assert (tool.id, tool.name, tool.input) == ("toolu_1", "Bash", {"command": "ls -la"})
    assert message.stop_reason == "tool_use"
    assert message.model == "claude-opus-5-5"
    assert message.usage.input_tokens == 120
    assert message.usage.output_tokens == 30
    assert message.usage.cache_read_input_tokens == 100
    assert message.usage.cache_creation_input_tokens == 7


def test_non_streaming_message_parses(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([tool_turn(), "Finished."])
    message = client(server).messages.create(
        model="claude-x", max_tokens=100, messages=USER, tools=[BASH]
    )
    history: Any = [
        *USER,
        {"role": "assistant", "content": [b.model_dump() for b in message.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}],
        },
    ]
    followup = client(server).messages.create(
        model="claude-x", max_tokens=100, tools=[BASH], messages=history
    )
    content: Any = message.content
    assert [block.type for block in content] == ["thinking", "text", "tool_use"]
    assert content[2].input == {"command": "ls -la"}
    assert message.stop_reason == "tool_use"
    answer: Any = followup.content[0]
    assert answer.text == "Finished."
    assert followup.stop_reason == "end_turn"
    assert server.last_tool_result() == "a.txt"


def test_raw_event_sequence_and_beta_query(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server([tool_turn()])
    response = httpx.post(
        server.base_url + "/v1/messages?beta=true",
        json={"model": "m", "stream": True, "messages": USER, "tools": [BASH]},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    names = [line[7:] for line in response.text.splitlines() if line.startswith("event: ")]
    assert names[0] == "message_start"
    assert names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == names.count("content_block_stop") == 3
    assert '"type":"input_json_delta"' in response.text
    assert '"type":"signature_delta"' in response.text
    assert server.requests[0].path == "/v1/messages"
    assert server.requests[0].query == "beta=true"


def test_count_tokens(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server()
    count = client(server).messages.count_tokens(model="claude-x", messages=USER)
    assert count.input_tokens > 0
    assert server.requests[0].kind == "count_tokens"
    assert server.model_calls == 0


@pytest.mark.parametrize(
    ("status", "error_class", "error_type"),
    [
        (529, anthropic.OverloadedError, "overloaded_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (400, anthropic.BadRequestError, "invalid_request_error"),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
def test_http_faults_surface_as_sdk_errors(
    status: int,
    error_class: type[anthropic.APIStatusError],
    error_type: str,
    stream: bool,
    scripted_model_server: ScriptedServerFactory,
) -> None:
    script = Script(turns=(ModelTurn("hello"),), faults=(Fault.http_error(status, at=0),))
    server = scripted_model_server(script)
    sdk = client(server)
    with pytest.raises(error_class) as caught:
        sdk.messages.create(model="m", max_tokens=10, messages=USER, tools=[BASH], stream=stream)
    # the fault hits call 0 only: the retry gets the scripted turn
    retry = sdk.messages.create(model="m", max_tokens=10, messages=USER, tools=[BASH])
    body: Any = caught.value.body
    assert body["type"] == "error"
    assert body["error"]["type"] == error_type
    assert caught.value.status_code == status
    retried: Any = retry.content[0]
    assert retried.text == "hello"
    assert [r.status for r in server.requests] == [status, 200]


def test_cut_stream_raises_in_the_sdk(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["a long enough answer"], faults=[Fault.cut_stream(4)])
    with (
        pytest.raises(Exception) as caught,
        client(server).messages.stream(
            model="m", max_tokens=10, messages=USER, tools=[BASH]
        ) as stream,
    ):
        stream.get_final_message()
    # anthropic raises its transport's protocol error (httpx2 in 2.x) or APIConnectionError
    error = caught.value
    assert isinstance(error, anthropic.APIConnectionError) or "incomplete chunked read" in str(
        error
    )


def test_in_stream_error_event_raises(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["hello"], faults=[Fault.stream_error(2)])
    with (
        pytest.raises(anthropic.APIStatusError) as caught,
        client(server).messages.stream(model="m", max_tokens=10, messages=USER) as stream,
    ):
        stream.get_final_message()
    assert "api_error" in str(caught.value)


def test_dropped_events_are_left_out(scripted_model_server: ScriptedServerFactory) -> None:
    script = Script(turns=(ModelTurn("hi"),), faults=(Fault.drop("ping", "message_stop", at=0),))
    server = scripted_model_server(script)
    response = httpx.post(
        server.base_url + "/v1/messages", json={"model": "m", "stream": True, "messages": USER}
    )
    assert "event: ping" not in response.text
    assert "event: message_stop" not in response.text
    assert "event: message_delta" in response.text
