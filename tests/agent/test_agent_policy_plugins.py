"""Approval settings need their core policy plugin: without it the agent refuses to be built.

Disabling ``tool-approval`` or ``permission-mode`` (``HARNESS_DISABLE_PLUGINS``) used to make
``tool_approval`` and ``permission_mode`` silently do nothing, so denied tools ran. The agent
now fails closed at construction.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness_core import HarnessConfigurationError, create_plugin_manager, define_harness_tool
from harness_core.parts.models import ToolOutputDeniedPart
from harness_core.testing import CallBuiltin, CallHost, EchoResults, ScriptedAdapter


def rm_all_tool(ran: list[str]) -> Any:
    def rm_all(input: Any, ctx: Any) -> str:
        ran.append("rm_all")
        return "everything is gone"

    return define_harness_tool(name="rm_all", description="Deletes everything.", input={"type": "object"},
                               execute=rm_all)


def script() -> ScriptedAdapter:
    return ScriptedAdapter([[[CallHost("rm_all", {})], [EchoResults()]]])


def test_tool_approval_with_the_tool_approval_plugin_disabled_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_DISABLE_PLUGINS", "tool-approval")
    ran: list[str] = []
    with pytest.raises(HarnessConfigurationError) as info:
        script().agent(tools=[rm_all_tool(ran)], tool_approval={"rm_all": "denied"})
    message = str(info.value)
    assert message.startswith("tool_approval is set for 'rm_all', but the core plugin 'tool-approval'")
    assert "is disabled by HARNESS_DISABLE_PLUGINS (set to 'tool-approval')" in message
    assert "cannot be honoured" in message
    assert ran == []


@pytest.mark.parametrize("mode", ["allow-reads", "allow-edits"])
def test_a_permission_mode_with_the_permission_mode_plugin_disabled_is_refused(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("HARNESS_DISABLE_PLUGINS", "other,permission-mode")
    with pytest.raises(HarnessConfigurationError) as info:
        ScriptedAdapter([[[CallBuiltin("bash", {"command": "touch pwned"})]]]).agent(permission_mode=mode)
    message = str(info.value)
    assert message.startswith(f"permission_mode {mode!r} is set, but the core plugin 'permission-mode'")
    assert "HARNESS_DISABLE_PLUGINS (set to 'other,permission-mode')" in message
    assert "permission_mode='allow-all'" in message


def test_a_manager_without_the_core_plugins_cannot_honour_the_settings() -> None:
    manager = create_plugin_manager(load_entry_points=False, register_core=False, env={})
    with pytest.raises(HarnessConfigurationError, match="is not registered on this agent's plugin manager"):
        script().agent(tools=[rm_all_tool([])], tool_approval={"rm_all": lambda call, ctx: "denied"},
                       plugin_manager=manager)


@pytest.mark.anyio
async def test_settings_that_need_nothing_still_work_with_the_plugins_disabled() -> None:
    env = {"HARNESS_DISABLE_PLUGINS": "tool-approval,permission-mode"}
    ran: list[str] = []
    # allow-all needs no policy, and a not-applicable entry imposes nothing.
    agent = script().agent(tools=[rm_all_tool(ran)], tool_approval={"rm_all": "not-applicable"},
                           plugin_manager=create_plugin_manager(load_entry_points=False, env=env))
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert ran == ["rm_all"] and result.text == "rm_all: everything is gone"


@pytest.mark.anyio
async def test_disabling_one_policy_leaves_the_other_settings_enforced() -> None:
    ran: list[str] = []
    manager = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "permission-mode"})
    agent = script().agent(tools=[rm_all_tool(ran)], tool_approval={"rm_all": "denied"}, plugin_manager=manager)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "rm_all" and ran == []


def test_a_rejected_harness_option_never_echoes_option_values() -> None:
    from harness_core import HarnessAgent

    with pytest.raises(HarnessConfigurationError) as info:
        HarnessAgent(harness="builtin", harness_options={"api_key": "sk-secret-value", "no_such_setting": 1})
    message = str(info.value)
    assert "sk-secret-value" not in message
    assert "api_key" in message and "no_such_setting" in message
