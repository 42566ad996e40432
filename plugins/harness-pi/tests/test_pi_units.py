"""Units of harness-pi that need no pi process: settings, built-ins, isolation, projection, state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_pi import BY_NAME, BY_NATIVE, PiSettings, pi
from harness_pi._extension import GATE_TITLE, HOST_TITLE, extension_source
from harness_pi._launch import KEY_VARIABLE, PiHome, rpc_argv
from harness_pi._projection import project, usage_from
from harness_pi._runtime import excluded_natives
from harness_pi._state import truncate_session
from harness_pi.plugin import harness_declare_builtins

from harness_core import (
    BuiltinFilter,
    BuiltinFilterMode,
    FinishStepPart,
    HarnessConfigurationError,
    HostToolSpec,
    ProjectionContext,
    ReasoningDeltaPart,
    TextDeltaPart,
    ToolCallPart,
    ToolKind,
)


def test_builtins_are_declared_with_common_names_kinds_and_resources() -> None:
    tools = harness_declare_builtins("pi")
    assert tools is not None and harness_declare_builtins("claude-code") is None
    assert [t.name for t in tools] == ["read", "write", "edit", "bash", "grep", "glob", "ls"]
    assert BY_NAME["glob"].native_name == "find" and BY_NATIVE["find"].name == "glob"
    assert {t.name: t.kind for t in tools} == {
        "read": ToolKind.READ_ONLY, "write": ToolKind.EDIT, "edit": ToolKind.EDIT, "bash": ToolKind.BASH,
        "grep": ToolKind.READ_ONLY, "glob": ToolKind.READ_ONLY, "ls": ToolKind.READ_ONLY,
    }
    assert BY_NAME["bash"].resources_for({"command": "ls -la"}).command == "ls -la"
    assert BY_NAME["edit"].resources_for({"path": "a.py", "edits": []}).paths == ("a.py",)
    assert BY_NAME["ls"].resources_for({}).paths == (".",)
    assert BY_NAME["edit"].input_schema["required"] == ["path", "edits"]


def test_settings_are_checked_with_clear_errors() -> None:
    with pytest.raises(HarnessConfigurationError, match=r"unknown setting.*'modle'"):
        pi(modle="x")
    with pytest.raises(HarnessConfigurationError, match=r"pi\(api=...\)"):
        pi(model="m", base_url="http://127.0.0.1:1/v1", api="grpc")
    with pytest.raises(HarnessConfigurationError, match="needs the model id"):
        pi(base_url="http://127.0.0.1:1/v1")
    assert PiSettings.from_kwargs(model="anthropic/claude-x").provider == "anthropic"
    assert PiSettings.from_kwargs(model="openai:gpt-x").model == "gpt-x"


def test_mcp_server_errors_name_server_and_field_but_never_secrets() -> None:
    with pytest.raises(HarnessConfigurationError) as caught:
        pi(mcp_servers={"calc": {"command": "x", "env": {"TOKEN": 42}}})
    assert "'calc'" in str(caught.value) and "env['TOKEN']" in str(caught.value) and "42" not in str(caught.value)
    with pytest.raises(HarnessConfigurationError) as caught:
        pi(mcp_servers={"web": {"type": "http", "url": "ftp://x", "headers": {"Authorization": "Bearer SECRET-1"}}})
    assert "'url'" in str(caught.value) and "SECRET-1" not in str(caught.value)
    with pytest.raises(HarnessConfigurationError, match="unknown server type 'sse'"):
        pi(mcp_servers={"x": {"type": "sse", "url": "http://h"}})
    settings = PiSettings.from_kwargs(mcp_servers={"calc": {"command": "python", "env": {"K": "SECRET-2"}}})
    assert "SECRET-2" not in repr(settings) and "SECRET-2" not in repr(settings.mcp_servers)


def test_isolated_home_inherits_no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-inherited")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-inherited")
    settings = PiSettings.from_kwargs(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-given",
                                      mcp_servers={"calc": {"command": "python", "env": {"K": "v"}}})
    home = PiHome.create(settings)
    try:
        env = home.environ(settings)
        assert "sk-inherited" not in json.dumps(env)
        assert env["PI_OFFLINE"] == "1" and env["HOME"] == str(home.home)
        assert env["PI_CODING_AGENT_DIR"] == str(home.agent_dir) and env[KEY_VARIABLE] == "sk-given"
        models = json.loads((home.agent_dir / "models.json").read_text())
        provider = models["providers"]["harness"]
        assert provider["baseUrl"] == "http://127.0.0.1:9/v1" and provider["apiKey"] == f"${KEY_VARIABLE}"
        assert "sk-given" not in (home.agent_dir / "models.json").read_text()
        mcp = json.loads((home.agent_dir / "mcp.json").read_text())
        assert mcp["mcpServers"]["calc"]["exposure"] == "direct"
        assert oct((home.agent_dir / "mcp.json").stat().st_mode & 0o777) == "0o600"
        argv = rpc_argv(["pi"], settings, home, session_file=home.session_file, excluded=["bash"],
                        instructions="Be brief.", version=(1, 6, 0))
        assert argv[argv.index("--exclude-tools") + 1] == "bash"
        assert argv[argv.index("--tools") + 1] == "+grep,+find,+ls"
        assert Path(argv[argv.index("--append-system-prompt") + 1]).read_text() == "Be brief."
        assert "sk-given" not in " ".join(argv)
    finally:
        home.cleanup()
    assert not home.root.exists()


def test_extension_source_embeds_the_configuration_as_data() -> None:
    tool = HostToolSpec(name="weather", description="</script> \u2028 weather", input_schema={"type": "object"})
    source = extension_source([tool], gate=True,
                              builtin_filter=BuiltinFilter(BuiltinFilterMode.INACTIVE, {"glob", "mcp__calc"}))
    assert GATE_TITLE in source and HOST_TITLE in source
    literal = source.split("const CONFIG = ", 1)[1].split(";\n", 1)[0]
    config = json.loads(literal)
    assert config["hostTools"][0]["name"] == "weather" and config["gate"] is True
    assert config["filter"] == {"mode": "inactive", "names": ["glob", "mcp__calc"]}
    assert config["harnessNames"] == {"find": "glob"}
    assert excluded_natives(BuiltinFilter(BuiltinFilterMode.INACTIVE, {"glob", "mcp__calc", "mcp__web__get"})) == [
        "find", "mcp__calc__*", "mcp__web__get"]
    assert excluded_natives(BuiltinFilter(BuiltinFilterMode.ACTIVE, {"read", "mcp__calc"})) == [
        "write", "edit", "bash", "grep", "find", "ls"]
    assert "\u2028" not in source


def test_projection_of_messages_tools_and_usage() -> None:
    context = ProjectionContext(harness_id="pi")
    from harness_pi import PiRecord, PiToolCall

    parts = [
        *project(PiRecord({"type": "message_start", "message": {"role": "assistant"}}), context),
        *project(PiRecord({"type": "message_update", "assistantMessageEvent": {
            "type": "thinking_delta", "contentIndex": 0, "delta": "plan"}}), context),
        *project(PiRecord({"type": "message_update", "assistantMessageEvent": {
            "type": "text_delta", "contentIndex": 1, "delta": "Hi"}}), context),
        *project(PiRecord({"type": "message_end", "message": {"role": "assistant", "stopReason": "toolUse", "usage": {
            "input": 10, "output": 5, "cacheRead": 90, "cacheWrite": 0, "totalTokens": 105,
            "cost": {"total": 0.25}}}}), context),
        *project(PiToolCall("c1", "find", {"pattern": "*.py"}), context),
    ]
    assert isinstance(parts[1], ReasoningDeltaPart) and parts[1].text == "plan"
    assert isinstance(parts[2], TextDeltaPart) and parts[2].text == "Hi"
    finish = parts[3]
    assert isinstance(finish, FinishStepPart) and finish.finish_reason == "tool-calls"
    assert finish.usage.input_tokens == 100 and finish.usage.cached_input_tokens == 90
    assert finish.usage.cost_usd == 0.25
    call = parts[4]
    assert isinstance(call, ToolCallPart) and call.tool_name == "glob" and call.provider_executed
    assert call.provider_metadata == {"pi": {"nativeToolName": "find"}}
    assert usage_from(None).input_tokens is None


def test_truncate_session_drops_the_interrupted_step() -> None:
    lines = [
        {"type": "session", "version": 3},
        {"type": "message", "id": "a", "message": {"role": "user", "content": "go"}},
        {"type": "message", "id": "b", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "call-1", "name": "bash", "arguments": {}}]}},
        {"type": "message", "id": "c", "message": {"role": "toolResult", "toolCallId": "call-1"}},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    kept = [json.loads(line)["id"] for line in truncate_session(text, {"call-1"}).splitlines()[1:]]
    assert kept == ["a"]
    assert truncate_session(text, {"other"}) == text


def test_a_built_in_provider_gets_the_key_through_the_variable() -> None:
    settings = PiSettings.from_kwargs(model="anthropic/claude-sonnet-4-5", api_key="sk-real")
    home = PiHome.create(settings)
    try:
        models = json.loads((home.agent_dir / "models.json").read_text())
        assert models == {"providers": {"anthropic": {"apiKey": f"${KEY_VARIABLE}"}}}
        argv = rpc_argv(["pi"], settings, home, session_file=home.session_file, excluded=[], instructions=None,
                        version=(1, 6, 0), extension=False)
        assert argv[argv.index("--provider") + 1] == "anthropic" and "-e" not in argv
        assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    finally:
        home.cleanup()
