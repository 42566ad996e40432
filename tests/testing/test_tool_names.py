"""Tool-name resolution: common names, exact names, namespaces, argument synonyms."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from harness_core.testing import (
    COMMON_TOOL_NAMES,
    ModelTurn,
    ToolCallSpec,
    ToolNotOfferedError,
    adapt_arguments,
    is_common_tool_name,
    resolve_tool_name,
)
from harness_core.testing.pytest_plugin import ScriptedServerFactory

CLAUDE = ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebSearch", "mcp__calc__add"]
CODEX = ["exec_command", "write_stdin", "apply_patch", "mcp__calc__add"]
PI = ["read", "bash", "edit", "write"]


@pytest.mark.parametrize(
    ("name", "offered", "expected"),
    [
        ("bash", CLAUDE, "Bash"),
        ("bash", CODEX, "exec_command"),
        ("bash", PI, "bash"),
        ("bash", ["shell"], "shell"),
        ("Bash", PI, "bash"),
        ("exec_command", PI, "bash"),
        ("read", CLAUDE, "Read"),
        ("write", PI, "write"),
        ("edit", CLAUDE, "Edit"),
        ("grep", CLAUDE, "Grep"),
        ("glob", CLAUDE, "Glob"),
        ("webSearch", CLAUDE, "WebSearch"),
        ("web_search", CLAUDE, "WebSearch"),
        ("task", CLAUDE, "Task"),
        ("mcp__calc__add", CODEX, "mcp__calc__add"),
    ],
)
def test_resolution(name: str, offered: list[str], expected: str) -> None:
    assert resolve_tool_name(name, offered) == expected


def test_exact_names_always_win() -> None:
    assert resolve_tool_name("bash", ["Bash", "bash"]) == "bash"
    assert resolve_tool_name("shell", ["exec_command", "shell"]) == "shell"


def test_not_offered_names_the_tool_and_the_list() -> None:
    with pytest.raises(ToolNotOfferedError) as caught:
        resolve_tool_name("write", CODEX)
    assert caught.value.name == "write"
    assert caught.value.offered == tuple(CODEX)
    assert "'write'" in str(caught.value)
    assert "exec_command, write_stdin, apply_patch" in str(caught.value)
    with pytest.raises(ToolNotOfferedError, match=r"\(no tools\)"):
        resolve_tool_name("bash", [])


def test_common_names_cover_the_core_tools() -> None:
    assert {"bash", "read", "write", "edit", "grep", "glob"} <= set(COMMON_TOOL_NAMES)


def test_adapt_arguments_follows_the_schema() -> None:
    claude_write = {"properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}}
    assert adapt_arguments({"path": "/a", "content": "x"}, claude_write) == {
        "file_path": "/a",
        "content": "x",
    }
    codex_exec = {"properties": {"cmd": {"type": "string"}, "workdir": {"type": "string"}}}
    assert adapt_arguments({"command": "ls"}, codex_exec) == {"cmd": "ls"}
    shell = {"properties": {"command": {"type": "array", "items": {"type": "string"}}}}
    assert adapt_arguments({"command": "ls"}, shell) == {"command": ["bash", "-lc", "ls"]}
    pi_edit: dict[str, Any] = {"properties": {"path": {}, "oldText": {}, "newText": {}}}
    assert adapt_arguments({"file_path": "a", "old_string": "x", "new_string": "y"}, pi_edit) == {
        "path": "a",
        "oldText": "x",
        "newText": "y",
    }
    assert adapt_arguments({"unknown": 1}, claude_write) == {"unknown": 1}
    assert adapt_arguments({"path": "a"}, None) == {"path": "a"}


def test_server_resolves_and_adapts(scripted_model_server: ScriptedServerFactory) -> None:
    turn = ModelTurn(
        tool_calls=[
            ToolCallSpec("bash", {"command": "ls"}),
            ToolCallSpec("write", {"path": "/a", "content": "b"}),
        ]
    )
    server = scripted_model_server([turn])
    tools = [
        {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {}}}},
        {
            "name": "Write",
            "input_schema": {"type": "object", "properties": {"file_path": {}, "content": {}}},
        },
    ]
    body = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools}
    content = httpx.post(server.base_url + "/v1/messages", json=body).json()["content"]
    assert [(block["name"], block["input"]) for block in content] == [
        ("Bash", {"command": "ls"}),
        ("Write", {"file_path": "/a", "content": "b"}),
    ]


def test_builtin_arguments_are_adapted_even_under_their_exact_name(
    scripted_model_server: ScriptedServerFactory,
) -> None:
    calls = [
        ToolCallSpec("write", {"file_path": "/a", "content": "x"}),  # Claude-style keys, pi's name
        ToolCallSpec("calc", {"path": "/a"}),  # a host tool: never adapted
    ]
    server = scripted_model_server(
        [
            ModelTurn(tool_calls=calls),
            ModelTurn(tool_calls=[ToolCallSpec("write", '{"file_path": "/a"}')]),
        ]
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "write",
                "parameters": {"properties": {"path": {}, "content": {}}},
            },
        },
        {
            "type": "function",
            "function": {"name": "calc", "parameters": {"properties": {"file_path": {}}}},
        },
    ]
    body: dict[str, Any] = {
        "model": "m",
        "messages": [{"role": "user", "content": "go"}],
        "tools": tools,
    }
    message = httpx.post(server.openai_base_url + "/chat/completions", json=body).json()["choices"][
        0
    ]["message"]
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == [
        '{"path":"/a","content":"x"}',
        '{"path":"/a"}',
    ]
    body["messages"] += [message, {"role": "tool", "tool_call_id": "call_t0_0", "content": "ok"}]
    verbatim = httpx.post(server.openai_base_url + "/chat/completions", json=body).json()
    assert (
        verbatim["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        == '{"file_path": "/a"}'
    )
    assert is_common_tool_name("Write")
    assert not is_common_tool_name("calc")


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/chat/completions", "/v1/responses"])
def test_unoffered_tool_is_a_500_naming_tool_and_offer(
    scripted_model_server: ScriptedServerFactory, path: str
) -> None:
    server = scripted_model_server(
        [ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "x"})])], check_errors=False
    )
    tools: dict[str, Any] = {
        "/v1/messages": [{"name": "Bash", "input_schema": {}}],
        "/v1/chat/completions": [{"type": "function", "function": {"name": "Bash"}}],
        "/v1/responses": [{"type": "function", "name": "Bash"}],
    }
    body = {"model": "m", "messages": [], "input": "go", "tools": tools[path], "stream": True}
    response = httpx.post(server.base_url + path, json=body)
    assert response.status_code == 500
    error = response.json()["error"]
    assert (error["tool"], error["offered"]) == ("write", ["Bash"])
    assert "'write'" in error["message"]
    assert "Bash" in error["message"]
    [recorded] = server.errors
    assert isinstance(recorded, ToolNotOfferedError)
    with pytest.raises(ToolNotOfferedError):
        server.raise_errors()
