"""``ToolCallSpec(..., unoffered=True)``: a call sent as written, offered or not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from harness_core.testing import (
    ModelTurn,
    Script,
    ScriptError,
    ToolCallSpec,
    ToolNotOfferedError,
    load_script,
)
from harness_core.testing.pytest_plugin import ScriptedServerFactory

CLAUDE_TOOLS: Any = [
    {"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {}}}},
    {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {}}}},
]


def _anthropic_calls(server: Any, tools: Any, *, stream: bool) -> list[tuple[str, Any, str]]:
    client = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0)
    messages: Any = [{"role": "user", "content": "go"}]
    if stream:
        with client.messages.stream(
            model="m", max_tokens=100, messages=messages, tools=tools
        ) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(model="m", max_tokens=100, messages=messages, tools=tools)
    return [(b.name, b.input, b.id) for b in message.content if b.type == "tool_use"]


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_sends_an_unoffered_call_verbatim(
    scripted_model_server: ScriptedServerFactory, stream: bool
) -> None:
    # "Write" is not offered (a runtime filtered it out); "path" is not Write's key anywhere.
    spec = ToolCallSpec("Write", {"path": "/w/x", "content": "x"}, unoffered=True)
    server = scripted_model_server([ModelTurn(tool_calls=[spec])])
    calls = _anthropic_calls(server, CLAUDE_TOOLS, stream=stream)
    assert calls == [("Write", {"path": "/w/x", "content": "x"}, "toolu_t0_0")]
    assert server.errors == []
    assert server.requests[-1].status == 200


def test_unoffered_names_are_not_resolved_and_arguments_not_renamed(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    # Without the flag "bash" resolves to the offered "Bash"; with it, "bash" goes out as is.
    resolved = ToolCallSpec("read", {"path": "/a"})
    verbatim = ToolCallSpec("bash", {"cmd": "ls"}, id="call-verbatim", unoffered=True)
    server = scripted_model_server([ModelTurn(tool_calls=[resolved, verbatim])])
    calls = _anthropic_calls(server, CLAUDE_TOOLS, stream=False)
    assert calls == [
        ("Read", {"file_path": "/a"}, "toolu_t0_0"),
        ("bash", {"cmd": "ls"}, "call-verbatim"),
    ]


def test_an_offered_name_keeps_its_arguments_untouched(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    # A plain call to pi's "write" renames Claude-style keys; an unoffered=True call does not.
    tools = [
        {
            "type": "function",
            "function": {"name": "write", "parameters": {"properties": {"path": {}, "content": {}}}},
        }
    ]
    calls = [
        ToolCallSpec("write", {"file_path": "/a", "content": "x"}),
        ToolCallSpec("write", {"file_path": "/a", "content": "x"}, unoffered=True),
    ]
    server = scripted_model_server([ModelTurn(tool_calls=calls)])
    body = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools}
    message = httpx.post(server.openai_base_url + "/chat/completions", json=body).json()[
        "choices"
    ][0]["message"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]] == [
        ("write", {"path": "/a", "content": "x"}),
        ("write", {"file_path": "/a", "content": "x"}),
    ]


def test_chat_sends_an_unoffered_call_with_string_arguments_verbatim(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    spec = ToolCallSpec("delete_everything", '{"force": tru', unoffered=True)
    server = scripted_model_server([ModelTurn("Trying.", tool_calls=[spec])])
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
    completion = client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "go"}],
        tools=[{"type": "function", "function": {"name": "exec_command", "parameters": {}}}],
    )
    message = completion.choices[0].message
    assert message.content == "Trying."
    [call] = message.tool_calls or []
    assert call.type == "function"
    assert (call.function.name, call.function.arguments) == ("delete_everything", '{"force": tru')


def test_responses_unoffered_and_offered_namespaced_calls(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    namespace = {
        "type": "namespace",
        "name": "mcp__calc",
        "description": "calc server",
        "tools": [{"type": "function", "name": "add", "parameters": {"type": "object"}}],
    }
    calls = [
        ToolCallSpec("mcp__files__remove", {"path": "a"}, unoffered=True),  # not offered: flat
        ToolCallSpec("mcp__calc__add", {"a": 1}, unoffered=True),  # offered: keeps its namespace
    ]
    server = scripted_model_server([ModelTurn(tool_calls=calls)])
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
    tools: Any = [namespace]
    with client.responses.stream(model="m", input="go", tools=tools) as stream:
        response = stream.get_final_response()
    unoffered, offered = response.output
    assert unoffered.type == offered.type == "function_call"
    assert (getattr(unoffered, "namespace", None), unoffered.name) == (None, "mcp__files__remove")
    assert json.loads(unoffered.arguments) == {"path": "a"}
    assert (getattr(offered, "namespace", None), offered.name) == ("mcp__calc", "add")
    assert server.errors == []


def test_without_the_flag_the_same_call_is_still_refused(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    server = scripted_model_server(
        [ModelTurn(tool_calls=[ToolCallSpec("Write", {"path": "/w/x"})])], check_errors=False
    )
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}],
            "tools": CLAUDE_TOOLS}
    response = httpx.post(server.base_url + "/v1/messages", json=body)
    assert response.status_code == 500
    [error] = server.errors
    assert isinstance(error, ToolNotOfferedError) and error.name == "Write"


def test_the_flag_round_trips_and_loads_from_script_files(tmp_path: Path) -> None:
    spec = ToolCallSpec("Write", {"path": "x"}, unoffered=True)
    assert spec.unoffered is True
    assert ToolCallSpec("Write").unoffered is False
    assert ToolCallSpec.model_validate(spec.model_dump()) == spec
    assert Script.model_validate({"turns": [{"tool_calls": [spec.model_dump()]}]}).turns[0].tool_calls == (spec,)
    path = tmp_path / "script.yaml"
    path.write_text(
        "turns:\n"
        "  - tool_calls:\n"
        "      - name: Write\n"
        "        arguments: {path: x}\n"
        "        unoffered: true\n",
        encoding="utf-8",
    )
    assert load_script(path).turns[0].tool_calls == (spec,)
    path.write_text(
        "turns:\n  - tool_calls:\n      - name: Write\n        unoffered: maybe\n", encoding="utf-8"
    )
    with pytest.raises(ScriptError, match=r"script\.yaml:4:\d+: turns\[0\]\.tool_calls\[0\]\.unoffered"):
        load_script(path)
