"""Turn selection: by assistant turns in the conversation; retries and side requests."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from harness_core.testing import (
    ModelRequest,
    ModelTurn,
    Script,
    ScriptedModelServer,
    ToolCallSpec,
)
from harness_core.testing.pytest_plugin import ScriptedServerFactory

BASH = {
    "name": "Bash",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}
SCRIPT = Script.of(
    ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "ls"})]),
    ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "pwd"})]),
    "third",
    side_answer="A side answer",
    final_text="The end.",
)


def anthropic_text(server: ScriptedModelServer, messages: list[Any], tools: Any = (BASH,)) -> str:
    body = {"model": "m", "max_tokens": 5, "messages": messages, "tools": list(tools)}
    blocks = httpx.post(server.base_url + "/v1/messages", json=body).json()["content"]
    return " ".join(b.get("text") or b.get("input", {}).get("command", "") for b in blocks)


def claude_history(tool_turns: int) -> list[Any]:
    """A Claude Code-like conversation: user, role system, then tool turns."""
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "system", "content": "reminder"},
    ]
    for n in range(tool_turns):
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": f"out{n}"}],
            }
        )
    return messages


def test_turns_follow_the_conversation_not_the_request_count(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server(SCRIPT)
    assert anthropic_text(server, claude_history(0)) == "ls"
    assert anthropic_text(server, claude_history(0)) == "ls"  # a retry gets the same turn
    assert anthropic_text(server, claude_history(1)) == "pwd"
    assert anthropic_text(server, claude_history(1), tools=()) == "A side answer"
    assert anthropic_text(server, claude_history(2)) == "third"
    assert anthropic_text(server, claude_history(3)) == "The end."
    assert [r.source for r in server.requests] == [
        "script",
        "script",
        "script",
        "side",
        "script",
        "final",
    ]
    assert [r.turn_index for r in server.model_requests] == [0, 0, 1, 1, 2, 3]
    assert server.model_requests[0].system == "reminder"


def test_toolless_script_mode(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(Script.of("first", "second", toolless="script"))
    messages = [{"role": "user", "content": "hi"}]
    assert anthropic_text(server, messages, tools=()) == "first"
    follow_up = [
        *messages,
        {"role": "assistant", "content": "first"},
        {"role": "user", "content": "more"},
    ]
    assert anthropic_text(server, follow_up, tools=()) == "second"


def test_parallel_results_and_prefill_count_once(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server(SCRIPT)
    parallel = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "two at once"},
                {"type": "tool_use", "id": "a", "name": "Bash", "input": {}},
                {"type": "tool_use", "id": "b", "name": "Bash", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "a",
                    "content": [{"type": "text", "text": "A"}],
                },
                {"type": "tool_result", "tool_use_id": "b", "content": "B", "is_error": True},
                {"type": "text", "text": "<system-reminder>"},
            ],
        },
    ]
    assert anthropic_text(server, parallel) == "pwd"
    request = server.model_requests[-1]
    assert (request.turn_index, request.tool_result_count, request.last_tool_result) == (1, 2, "B")
    assert request.tool_results[1].is_error
    prefill = [*parallel, {"role": "assistant", "content": "Sure"}]
    assert anthropic_text(server, prefill) == "pwd"


def test_chat_and_responses_counting(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(SCRIPT)
    chat_tools = [{"type": "function", "function": {"name": "bash", "parameters": {}}}]
    chat = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
    ]
    answer = httpx.post(
        server.openai_base_url + "/chat/completions",
        json={"model": "m", "messages": chat, "tools": chat_tools},
    ).json()
    assert (
        answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        == '{"command":"pwd"}'
    )
    responses_input = [
        {"type": "message", "role": "developer", "content": "base"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "reasoning", "id": "rs", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "one"},
        {"type": "function_call_output", "call_id": "c2", "output": "two"},
        {"type": "function_call", "call_id": "c3", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c3", "output": "three"},
    ]
    answer = httpx.post(
        server.openai_base_url + "/responses",
        json={
            "model": "m",
            "input": responses_input,
            "tools": [{"type": "function", "name": "exec_command"}],
        },
    ).json()
    assert answer["output"][0]["content"][0]["text"] == "third"
    chat_request, responses_request = server.model_requests
    assert (chat_request.turn_index, chat_request.tool_result_count, chat_request.system) == (
        1,
        2,
        "sys",
    )
    assert (responses_request.turn_index, responses_request.last_tool_result) == (2, "three")
    assert responses_request.system == "base"
    assert responses_request.last_user_text == "go"


def test_multi_prompt_conversation_advances(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(Script.of("first answer", "second answer"))
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "two"},
    ]
    assert anthropic_text(server, messages) == "second answer"


def test_callable_script_answers_from_the_request(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    def respond(request: ModelRequest) -> ModelTurn | None:
        if request.turn_index > 0:
            return None  # fall back to the final text
        workdir = re.search(r"cwd: (\S+)", request.system)
        assert workdir is not None
        return ModelTurn(
            tool_calls=[ToolCallSpec("write", {"path": f"{workdir[1]}/out.txt", "content": "x"})]
        )

    server = scripted_model_server(Script(respond=respond, final_text="written"))
    write_tool = {
        "name": "Write",
        "input_schema": {"type": "object", "properties": {"file_path": {}, "content": {}}},
    }
    body: Any = {
        "model": "m",
        "max_tokens": 5,
        "system": [{"type": "text", "text": "Env. cwd: /tmp/work"}],
        "messages": [{"role": "user", "content": "write"}],
        "tools": [write_tool],
    }
    first = httpx.post(server.base_url + "/v1/messages", json=body).json()
    assert first["content"][0]["name"] == "Write"
    assert first["content"][0]["input"] == {"file_path": "/tmp/work/out.txt", "content": "x"}
    body["messages"] += [
        {"role": "assistant", "content": first["content"]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_t0_0", "content": "ok"}],
        },
    ]
    second = httpx.post(server.base_url + "/v1/messages", json=body).json()
    assert second["content"][0]["text"] == "written"
    assert [r.source for r in server.requests] == ["responder", "final"]


def test_callable_may_return_plain_text(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(lambda request: f"you said {request.last_user_text}")
    assert anthropic_text(server, [{"role": "user", "content": "hello"}]) == "you said hello"


def test_failing_callable_answers_500_and_is_recorded(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    def respond(request: ModelRequest) -> ModelTurn:
        raise ValueError("script bug")

    server = scripted_model_server(respond, check_errors=False)
    response = httpx.post(
        server.base_url + "/v1/messages", json={"model": "m", "messages": [], "tools": [BASH]}
    )
    assert response.status_code == 500
    assert "script bug" in response.json()["error"]["message"]
    assert server.requests[0].error is not None
    with pytest.raises(ValueError, match="script bug"):
        server.raise_errors()
    assert len(server.clear_errors()) == 1
    assert server.errors == []
