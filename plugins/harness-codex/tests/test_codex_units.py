"""Unit tests of the pieces that need no Codex CLI: settings, config.toml, environment, names, state."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from harness_codex import BUILTINS, CodexSettings, codex
from harness_codex._builtins import patch_tool_name, unwrap_command
from harness_codex._config import (
    KEY_VARIABLE,
    approval_and_sandbox,
    config_toml,
    environment,
    to_toml,
)
from harness_codex._resumed import pending_from_state

from harness_core import HarnessConfigurationError, HarnessError, ToolKind


def test_unknown_and_bad_settings_are_refused_by_name() -> None:
    with pytest.raises(HarnessConfigurationError, match="unknown setting 'modle'"):
        codex(modle="x")
    with pytest.raises(HarnessConfigurationError, match=r"base_url"):
        codex(base_url="localhost:8000")
    with pytest.raises(HarnessConfigurationError, match=r"interrupt_timeout"):
        codex(interrupt_timeout=0)
    with pytest.raises(HarnessConfigurationError, match=r"config"):
        codex(config=["x"])


def test_model_accepts_the_openai_prefix_only() -> None:
    assert codex(model="openai:gpt-5.5").settings.model == "gpt-5.5"
    with pytest.raises(HarnessConfigurationError, match="Responses API only"):
        codex(model="anthropic:claude-sonnet-4-5")


def test_config_toml_round_trips_with_mcp_servers_and_dotted_overrides() -> None:
    settings = CodexSettings.from_kwargs(
        model="gpt-5.5", base_url="http://127.0.0.1:9/v1",
        mcp_servers={"notes": {"command": "python", "args": ["-m", "notes"], "env": {"K": "v\"q"}},
                     "web": {"type": "http", "url": "https://x.invalid/mcp", "headers": {"A": "b"}}},
        config={"model_providers.harness.request_max_retries": 0, "features": {"x": True}})
    data = tomllib.loads(config_toml(settings))
    assert data["model"] == "gpt-5.5" and data["model_provider"] == "harness"
    assert data["model_providers"]["harness"] == {
        "name": "harness", "base_url": "http://127.0.0.1:9/v1", "wire_api": "responses", "env_key": KEY_VARIABLE,
        "request_max_retries": 0}
    assert data["mcp_servers"]["notes"] == {"command": "python", "args": ["-m", "notes"], "env": {"K": "v\"q"}}
    assert data["mcp_servers"]["web"] == {"url": "https://x.invalid/mcp", "http_headers": {"A": "b"}}
    assert data["web_search"] == "disabled" and data["features"] == {"x": True}


def test_to_toml_refuses_values_toml_cannot_hold() -> None:
    with pytest.raises(TypeError):
        to_toml({"a": None})


def test_environment_drops_inherited_secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEX_HOME", "CODEX_SANDBOX", "GITHUB_TOKEN",
                 "OPENAI_BASE_URL"):
        monkeypatch.setenv(name, "inherited-secret")
    env = environment(CodexSettings.from_kwargs(api_key="given", env={"EXTRA": "1"}), tmp_path, tmp_path / ".codex")
    assert "inherited-secret" not in {v for k, v in env.items() if k != KEY_VARIABLE}
    assert env[KEY_VARIABLE] == "given" and env["EXTRA"] == "1"
    assert env["HOME"] == str(tmp_path) and env["CODEX_HOME"] == str(tmp_path / ".codex")
    assert "PATH" in env


def test_approval_mapping() -> None:
    assert approval_and_sandbox(True) == ("untrusted", "danger-full-access")
    assert approval_and_sandbox(False) == ("never", "danger-full-access")


@pytest.mark.parametrize(("display", "command"), [
    ("/bin/bash -lc 'echo hi > a.txt'", "echo hi > a.txt"),
    ("/bin/bash -lc ls", "ls"),
    ("git status", "git status"),
    ("/bin/bash -lc 'unbalanced", "/bin/bash -lc 'unbalanced"),
])
def test_unwrap_command(display: str, command: str) -> None:
    assert unwrap_command(display) == command


def test_patch_names_and_builtin_declarations() -> None:
    assert patch_tool_name([{"kind": {"type": "add"}}]) == "write"
    assert patch_tool_name([{"kind": {"type": "add"}}, {"kind": {"type": "update"}}]) == "edit"
    assert patch_tool_name([]) == "edit"
    by_name = {tool.name: tool for tool in BUILTINS}
    assert by_name["bash"].native_name == "exec_command" and by_name["bash"].kind is ToolKind.BASH
    assert by_name["edit"].resources_for({"changes": [{"path": "a.py"}]}).paths == ("a.py",)
    assert by_name["bash"].resources_for({"command": "rm -rf x"}).command == "rm -rf x"


@pytest.mark.parametrize("state", [{}, {"pending": []}, {"pending": {"approvals": {"a": {}}, "tools": {}}}])
def test_unreadable_pending_state_fails_closed(state: dict[str, Any]) -> None:
    with pytest.raises(HarnessError, match="unreadable suspended-turn state"):
        pending_from_state(state)


def test_plugin_declares_codex() -> None:
    from harness_core import get_plugin_manager

    hooks = get_plugin_manager().hooks
    assert [b.name for b in hooks.builtins("codex")] == [b.name for b in BUILTINS]
    assert hooks.adapter_factory("codex")().harness_id == "codex"


def test_usage_is_the_difference_of_thread_totals_and_survives_a_restart() -> None:
    from harness_codex import _protocol as p
    from harness_codex._turn import usage_between

    def totals(total: int, inp: int, out: int) -> p.TokenUsageBreakdown:
        return p.TokenUsageBreakdown(totalTokens=total, inputTokens=inp, outputTokens=out, cachedInputTokens=0,
                                     reasoningOutputTokens=0)

    usage = usage_between(totals(100, 90, 10), totals(160, 140, 20))
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (50, 10, 60)
    restarted = usage_between(totals(100, 90, 10), totals(30, 25, 5))
    assert (restarted.input_tokens, restarted.output_tokens) == (25, 5)


def test_withheld_calls_pair_a_refused_call_with_its_output(tmp_path: Path) -> None:
    """``_withheld``: a withheld tool's raw ``function_call`` + ``function_call_output`` become
    ``tool-call`` + ``tool-output-denied``; other tools, built-ins Codex reported and
    unanswered calls give nothing; the rollout is read from the turn's starting offset."""
    import json

    from harness_codex._withheld import WithheldCalls

    from harness_core import ToolCallPart, ToolOutputDeniedPart

    def known(call_id: str) -> bool:
        return call_id == "builtin"

    calls = WithheldCalls(frozenset({"secret", "shell"}))
    assert calls.raw_item({"type": "function_call", "name": "echo", "call_id": "e", "arguments": "{}"}, known) == []
    assert calls.raw_item({"type": "function_call_output", "call_id": "e", "output": "x"}, known) == []
    assert calls.raw_item({"type": "function_call", "name": "shell", "call_id": "builtin", "arguments": "{}"},
                          known) == []
    assert calls.raw_item({"type": "function_call_output", "call_id": "builtin", "output": "ran"}, known) == []
    assert calls.raw_item({"type": "function_call", "name": "secret", "call_id": "s", "arguments": "not json"},
                          known) == []
    call, denied = calls.raw_item({"type": "function_call_output", "call_id": "s",
                                   "output": [{"type": "input_text", "text": "unsupported call: secret"}]}, known)
    assert isinstance(call, ToolCallPart) and call.input == "not json" and call.tool_name == "secret"
    assert isinstance(denied, ToolOutputDeniedPart) and denied.tool_call_id == "s"
    assert denied.reason is not None and "inactive" in denied.reason
    assert denied.reason.endswith("told the model: unsupported call: secret")
    assert calls.raw_item({"type": "function_call_output", "call_id": "s", "output": "again"}, known) == []

    rollout = tmp_path / "rollout.jsonl"
    old = json.dumps({"type": "response_item", "payload": {"type": "function_call", "name": "secret",
                                                           "call_id": "old", "arguments": "{}"}})
    rollout.write_text(old + "\n")
    offset = rollout.stat().st_size
    new = [{"type": "response_item", "payload": {"type": "function_call_output", "call_id": "old", "output": "o"}},
           {"type": "response_item", "payload": {"type": "function_call", "name": "secret", "call_id": "r",
                                                 "arguments": "{\"a\": 1}"}},
           {"type": "event_msg", "payload": {}},
           {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "r", "output": "no"}}]
    with rollout.open("a") as handle:
        handle.write("\n".join(json.dumps(line) for line in new) + "\nnot json\n")
    parts = WithheldCalls(frozenset({"secret"}), (rollout, offset)).at_end(known)
    assert [(p.type, p.tool_call_id) for p in parts] == [("tool-call", "r"), ("tool-output-denied", "r")]
    assert WithheldCalls(frozenset({"secret"}), (tmp_path / "missing.jsonl", 0)).at_end(known) == []
    assert WithheldCalls(frozenset({"secret"})).at_end(known) == []
