"""Settings, tool identity and permission answers, without an agent process."""

from __future__ import annotations

from typing import Any

import pytest
from harness_acp import BUILTINS, acp
from harness_acp._calls import CallTracker
from harness_acp._tools import identify, normalized_input
from harness_acp._turn import permission_response

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    PermissionMode,
)


def test_selectable_by_harness_id_with_a_profile_option() -> None:
    agent = HarnessAgent(harness="acp", harness_options={"agent": "pi-acp"}, include_plugin_tools=False)
    assert agent.harness_id == "acp"
    assert {b.name for b in BUILTINS} <= set(agent.builtins)
    assert agent.builtins["bash"].native_name == "execute" and agent.builtins["grep"].native_name == "search"


def test_defaults_to_codex_acp_and_takes_any_command() -> None:
    assert acp().settings.agent == "codex-acp"
    custom = acp(command="my-agent --acp", name="mine")
    assert custom.settings.command == ("my-agent", "--acp") and custom.settings.profile is None
    assert custom.supports_builtin_approvals and not custom.supports_builtin_filtering


@pytest.mark.parametrize(("settings", "message"), [
    ({"colour": "blue"}, "unknown setting 'colour'"),
    ({"agent": "gemini"}, "unknown agent profile 'gemini'"),
    ({"command": []}, "acp(command=...)"),
    ({"env": {"A": 1}}, "bad keys: 'A'"),
    ({"command": ["x"], "base_url": "http://127.0.0.1:1"}, "acp(base_url=...)"),
    ({"mcp_servers": {"harness": {"command": "x"}}}, "reserved for the host tools"),
    ({"mcp_servers": {"calc": {"args": []}}}, "acp(mcp_servers=...)['calc']: a stdio server needs"),
    ({"mcp_servers": {"web": {"type": "http", "url": "ftp://x"}}}, "acp(mcp_servers=...)['web']: an http server"),
    ({"mcp_servers": {"web": {"type": "ws"}}}, "unknown server type 'ws'"),
    ({"cancel_timeout": 0}, "acp(cancel_timeout=...)"),
])
def test_bad_settings_name_the_setting(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(HarnessConfigurationError) as caught:
        acp(**settings)
    assert message in str(caught.value)


def test_secret_values_are_never_echoed_in_errors() -> None:
    with pytest.raises(HarnessConfigurationError) as caught:
        acp(mcp_servers={"calc": {"command": "calc", "env": {"TOKEN": 12345, "OK": "hunter2"}}})
    assert "12345" not in str(caught.value) and "hunter2" not in str(caught.value)
    with pytest.raises(HarnessConfigurationError) as caught:
        acp(mcp_servers={"web": {"type": "http", "url": "https://x", "headers": {"Authorization": ["Bearer s3"]}}})
    assert "s3" not in str(caught.value) and "Authorization" in str(caught.value)


def test_a_mode_mapping_the_agent_cannot_honour_raises_naming_agent_and_mode() -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError) as caught:
        acp(agent="codex-acp", permission_mode_mapping={"allow-edits": "yolo"})
    text = str(caught.value)
    assert "'allow-edits'" in text and "'codex-acp'" in text and "'yolo'" in text
    ok = acp(agent="codex-acp", permission_mode_mapping={"allow-reads": "read-only"})
    assert ok.settings.permission_mode_mapping == {PermissionMode.ALLOW_READS: "read-only"}
    with pytest.raises(HarnessConfigurationError, match="is not one of"):
        acp(permission_mode_mapping={"everything": "full-access"})


@pytest.mark.parametrize(("kind", "title", "raw", "name"), [
    ("read", "Read notes.md", {"path": "notes.md"}, "read"),
    ("edit", "write", {"path": "a"}, "edit"),
    ("execute", "ls", {"command": ["/bin/bash", "-lc", "ls -la"]}, "bash"),
    ("search", "grep TODO", {"pattern": "TODO"}, "grep"),
    ("search", "glob", {"pattern": "src/**/*.py"}, "glob"),
    ("fetch", "fetch https://x", {"url": "https://x"}, "webSearch"),
    ("think", "Thinking about it", None, "Thinking_about_it"),
    (None, "mcp: calc/mul", None, "mcp_calc_mul"),
])
def test_tool_kinds_map_to_common_names_or_dynamic_tools(kind: str | None, title: str, raw: Any, name: str) -> None:
    identity = identify(kind, title, raw)
    assert identity.tool_name == name
    assert identity.dynamic is (name not in {"read", "edit", "bash", "grep", "glob", "webSearch"})
    metadata = identity.metadata("c1")["acp"]
    assert metadata["title"] == title and metadata["toolCallId"] == "c1"
    assert metadata["nativeToolName"] == (identity.builtin.native_name if identity.builtin else title)


def test_execute_input_is_the_shell_text_without_agent_bookkeeping() -> None:
    identity = identify("execute", "echo hi", {})
    raw = {"command": ["/bin/bash", "-lc", "echo hi > x"], "cwd": "/w", "turn_id": "t", "call_id": "c"}
    assert normalized_input(identity, raw) == {"command": "echo hi > x", "cwd": "/w"}
    assert normalized_input(identity, {"command": ["git", "status", "--short"]}) == {"command": "git status --short"}


class _Option:
    def __init__(self, option_id: str, kind: str) -> None:
        self.option_id, self.kind = option_id, kind


def test_only_allow_once_and_reject_once_are_chosen_and_missing_ones_fail_closed() -> None:
    options = [_Option("approved", "allow_once"), _Option("always", "allow_always"), _Option("abort", "reject_once")]
    assert permission_response(options, True).outcome.option_id == "approved"
    assert permission_response(options, False).outcome.option_id == "abort"
    only_always = [_Option("always", "allow_always"), _Option("never", "reject_always")]
    assert permission_response(only_always, True).outcome.outcome == "cancelled"
    assert permission_response(only_always, False).outcome.outcome == "cancelled"


class _Update:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


def test_the_tracker_holds_pending_calls_for_approval_and_never_projects_host_calls() -> None:
    tracker = CallTracker(hold_pending=True, host_server="harness")
    assert tracker.on_update(_Update(tool_call_id="c1", kind="execute", title="rm -rf x", status="pending")) == []
    call_id, identity, _ = tracker.claim_for_approval(_Update(tool_call_id="c1", kind="execute", title="rm -rf x"))
    assert (call_id, identity.tool_name) == ("c1", "bash")
    assert tracker.on_update(_Update(tool_call_id="c1", status="in_progress")) == []
    (final,) = tracker.on_update(_Update(tool_call_id="c1", status="completed", raw_output={"formatted_output": "ok"}))
    assert final.type == "tool-result" and final.output == "ok"
    host = _Update(tool_call_id="h1", title="harness/add", status="in_progress", raw_input={"server": "harness"})
    assert tracker.on_update(host) == [] and tracker.take_host_call("add") == "h1"
    tracker.mark_denied("c2")
    tracker.claim_for_approval(_Update(tool_call_id="c2", kind="edit", title="edit a"))
    assert tracker.on_update(_Update(tool_call_id="c2", status="failed")) == []
    leftover = _Update(tool_call_id="c3", kind="read", title="read b", status="pending")
    assert tracker.on_update(leftover) == []
    assert [p.type for p in tracker.flush()] == ["tool-call", "tool-error"]


def test_a_cancelled_request_is_answered_cancelled_whatever_the_options() -> None:
    options = [_Option("approved", "allow_once"), _Option("abort", "reject_once")]
    assert permission_response(options, False, cancelled=True).outcome.outcome == "cancelled"


def test_projection_of_text_thoughts_plans_and_other_content() -> None:
    from acp import update_agent_message_text, update_agent_thought_text, update_plan
    from acp.helpers import plan_entry
    from harness_acp import AcpEvent
    from harness_acp._projection import project

    from harness_core import ProjectionContext

    context = ProjectionContext(harness_id="acp")
    parts = [p for update in (update_agent_thought_text("think "), update_agent_thought_text("more"),
                              update_agent_message_text("Hello"), update_agent_message_text(" world"),
                              update_plan([plan_entry("step one", status="in_progress")]))
             for p in project(AcpEvent(update=update), context)]
    parts += project(AcpEvent(close=True), context)
    assert [p.type for p in parts] == ["reasoning-start", "reasoning-delta", "reasoning-delta", "reasoning-end",
                                       "text-start", "text-delta", "text-delta", "text-end", "raw"]
    plan = parts[-1].raw_value
    assert plan["type"] == "plan" and plan["entries"][0]["content"] == "step one"
    assert plan["entries"][0]["status"] == "in_progress"


def test_a_running_call_waits_briefly_for_a_permission_request_then_goes_out() -> None:
    tracker = CallTracker(hold_pending=True, host_server="harness", hold_seconds=0.5)
    assert tracker.on_update(_Update(tool_call_id="m1", title="Tool: calc/mul", status="in_progress",
                                     raw_input={"server": "calc", "tool": "mul", "arguments": {"a": 1}})) == []
    # the permission request that follows claims it: the core reports the call
    call_id, identity, tool_input = tracker.claim_for_approval(_Update(
        tool_call_id="m1", title="Approve MCP tool call",
        raw_input={"server_name": "calc", "request": {"message": 'Allow the calc MCP server to run tool "mul"?',
                                                      "_meta": {"tool_params": {"a": 1}}}}))
    assert (call_id, identity.tool_name, tool_input) == ("m1", "mcp__calc__mul", {"a": 1})
    assert tracker.next_release() is None
    (final,) = tracker.on_update(_Update(tool_call_id="m1", status="completed", raw_output={"output": "1"}))
    assert final.tool_name == "mcp__calc__mul"
    # a call nobody asks about is released once its window passed
    assert tracker.on_update(_Update(tool_call_id="x1", kind="execute", title="ls", status="in_progress")) == []
    due = tracker.next_release()
    assert due is not None and tracker.release_due(due - 0.1) == []
    (call,) = tracker.release_due(due)
    assert call.type == "tool-call" and call.tool_name == "bash"
    assert [p.type for p in tracker.on_update(_Update(tool_call_id="x1", status="completed"))] == ["tool-result"]
