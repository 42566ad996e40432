"""Model clients: naming, configuration errors, wire conversion, reasoning round trips."""

from __future__ import annotations

from typing import Any

import pytest
from harness_builtin.conversation import (
    AssistantMessage,
    ReasoningBlock,
    ToolCallRecord,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
    dump_messages,
    load_messages,
)
from harness_builtin.models import (
    ModelError,
    ModelRequest,
    ReasoningDelta,
    ScriptedModelClient,
    ToolSpec,
    create_model_client,
    default_model_name,
    parse_model_name,
)
from harness_builtin.models.anthropic import to_anthropic_messages
from harness_builtin.models.openai_chat import to_openai_messages

from harness_core.errors import HarnessConfigurationError
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = pytest.mark.anyio

HISTORY = [
    UserMessage(text="fix it"),
    AssistantMessage(text="Looking.", reasoning=(ReasoningBlock(text="hmm", signature="sig"),),
                     tool_calls=(ToolCallRecord(id="c1", name="read", arguments={"file_path": "a.py"}),)),
    ToolResultsMessage(results=(ToolResultRecord(call_id="c1", name="read", content="x", is_error=True),)),
    UserMessage(text="note", kind="repair"),
]


def test_parse_model_name() -> None:
    assert parse_model_name("anthropic:claude-sonnet-4-5") == ("anthropic", "claude-sonnet-4-5")
    assert parse_model_name("openai:qwen2.5-coder:7b") == ("openai", "qwen2.5-coder:7b")
    with pytest.raises(HarnessConfigurationError, match="provider:model"):
        parse_model_name("gpt-4.1")
    with pytest.raises(HarnessConfigurationError, match="unknown provider 'gemini'"):
        parse_model_name("gemini:pro")


def test_default_model_name() -> None:
    assert default_model_name({}) is None
    assert default_model_name({"OPENAI_API_KEY": "k"}) == "openai:gpt-4.1"
    assert default_model_name({"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}) == "anthropic:claude-sonnet-4-5"
    assert default_model_name({"HARNESS_MODEL": "openai:x", "ANTHROPIC_API_KEY": "k"}) == "openai:x"


def test_missing_keys_are_configuration_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY") as info:
        create_model_client("anthropic:claude-sonnet-4-5")
    assert info.value.error_type == "configuration"
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        create_model_client("openai:gpt-4.1")
    # A local OpenAI-compatible or Anthropic-compatible server needs no key.
    client = create_model_client("openai:qwen2.5-coder", base_url="http://127.0.0.1:1/v1")
    assert client.name == "openai:qwen2.5-coder"
    client = create_model_client("anthropic:local", base_url="http://127.0.0.1:1")
    assert client.name == "anthropic:local"


def test_a_client_object_passes_through() -> None:
    client = ScriptedModelClient(["hi"])
    assert create_model_client(client) is client
    with pytest.raises(HarnessConfigurationError, match="ModelClient"):
        create_model_client(42)  # type: ignore[arg-type]


def test_anthropic_conversion_merges_user_turns_and_keeps_signed_thinking() -> None:
    messages = to_anthropic_messages(HISTORY)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assistant = messages[1]["content"]
    assert assistant[0] == {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    assert assistant[2] == {"type": "tool_use", "id": "c1", "name": "read", "input": {"file_path": "a.py"}}
    last = messages[2]["content"]
    assert last[0] == {"type": "tool_result", "tool_use_id": "c1", "content": "x", "is_error": True}
    assert last[1] == {"type": "text", "text": "note"}


def test_openai_conversion() -> None:
    messages = to_openai_messages("sys", HISTORY)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[2]["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"file_path": "a.py"}'}
    assert messages[3] == {"role": "tool", "tool_call_id": "c1", "content": "x"}


def test_conversation_json_round_trip() -> None:
    data = dump_messages(HISTORY)
    assert load_messages(data) == HISTORY
    with pytest.raises(HarnessConfigurationError, match="malformed message data at 0"):
        load_messages([{"role": "robot"}])


async def _collect(client: Any, request: ModelRequest) -> list[Any]:
    return [event async for event in client.stream(request)]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_reasoning_streams_and_returns_to_the_model(provider: str) -> None:
    script = Script.of(ModelTurn("Answer.", reasoning="Let me think.",
                                 tool_calls=[ToolCallSpec("read", {"file_path": "a"})]), "ok")
    with ScriptedModelServer(script) as server:
        url = server.base_url if provider == "anthropic" else server.openai_base_url
        client = create_model_client(f"{provider}:m", base_url=url, api_key="k", max_retries=0)
        tools = [ToolSpec("read", "Read", {"type": "object", "properties": {"file_path": {"type": "string"}}})]
        events = await _collect(client, ModelRequest(system="s", messages=[UserMessage(text="q")], tools=tools))
        assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Let me think."
        done = events[-1]
        assert done.finish_reason == "tool-calls" and done.usage.input_tokens and done.usage.output_tokens
        await client.aclose()
        body = server.requests[-1].body
        assert body["stream"] is True
        assert body["tools"]


async def test_anthropic_request_shape() -> None:
    with ScriptedModelServer(Script.of("hi")) as server:
        client = create_model_client("anthropic:claude-x", base_url=server.base_url, api_key="secret-key",
                                     max_retries=0)
        await _collect(client, ModelRequest(system="be brief", messages=HISTORY, max_output_tokens=123))
        await client.aclose()
        record = server.requests[-1]
        assert record.body["model"] == "claude-x" and record.body["max_tokens"] == 123
        assert record.body["system"] == "be brief"
        assert "secret-key" not in str(record.headers)
