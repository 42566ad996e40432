"""Plugin authors' isolation, and the core's policies as ordinary, replaceable plugins.

* ``create_plugin_manager(load_entry_points=False, env={}, plugins=[...])`` (or
  ``harness_core.testing.isolated_plugin_manager`` / the ``isolated_plugins`` fixture)
  holds only the plugins named: another installed policy cannot change the test;
* a replacement for a core policy under another name is accepted when it declares what it
  enforces (``@enforces``); nothing is looked up by name;
* built-in calls skip the approval hook under allow-all only when every implementation
  declares it approves or abstains (behaviour, not names).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessConfigurationError,
    PermissionMode,
    PluginLoadWarning,
    ToolCall,
    create_plugin_manager,
    define_harness_tool,
    enforces,
    hookimpl,
)
from harness_core.parts.models import ToolOutputDeniedPart
from harness_core.testing import (
    CallBuiltin,
    CallHost,
    EchoResults,
    IsolatedPlugins,
    ScriptedAdapter,
    isolated_plugin_manager,
)


class DenyEverything:
    """A policy "someone else installed"."""

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
        return ApprovalDecision(ApprovalStatus.DENIED, "org policy denies everything")


class FakeEntryPoint:
    name, value, dist = "org-deny", "org_deny:DenyEverything", None

    @staticmethod
    def load() -> object:
        return DenyEverything


def echo(ran: list[str]) -> Any:
    return define_harness_tool(name="echo", description="Echo.", input={"type": "object"},
                               execute=lambda input, ctx: ran.append("echo") or "echoed")


def installed_environment() -> Any:
    """A manager as discovery builds it when a deny-all policy is installed."""
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.load_entry_points([FakeEntryPoint()])  # type: ignore[list-item]
    return manager


@pytest.mark.anyio
async def test_an_installed_policy_changes_the_default_environment_but_not_an_isolated_manager() -> None:
    ran: list[str] = []
    script = [[[CallHost("echo", {})], [EchoResults()]]]
    polluted = ScriptedAdapter(script).agent(tools=[echo(ran)], plugin_manager=installed_environment())
    result = await polluted.generate(session=await polluted.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "org policy denies everything" in (denied.reason or "") and ran == []

    isolated = ScriptedAdapter(script).agent(tools=[echo(ran)], plugin_manager=isolated_plugin_manager())
    result = await isolated.generate(session=await isolated.create_session(), prompt="go")
    assert ran == ["echo"] and "echoed" in result.text


def test_isolated_plugin_manager_holds_the_core_defaults_and_only_the_named_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_DISABLE_PLUGINS", "permission-mode")  # the developer's shell
    policy = DenyEverything()
    manager = isolated_plugin_manager(policy)
    names = {record.name for record in manager.records()}
    assert "permission-mode" in names and manager.record("permission-mode").status == "loaded"  # type: ignore[union-attr]
    assert manager.pm.get_plugin(manager.plugin_name(policy)) is policy
    bare = isolated_plugin_manager(policy, core=False)
    assert [r.name for r in bare.records()] == [bare.plugin_name(policy)]
    with pytest.raises(HarnessConfigurationError, match="is failed"), pytest.warns(PluginLoadWarning):
        isolated_plugin_manager(object.__new__(type("Typo", (), {"harness_tols": hookimpl(lambda self: [])})))


def test_the_isolated_plugins_fixture_builds_the_same(isolated_plugins: IsolatedPlugins) -> None:
    manager = isolated_plugins(DenyEverything())
    decision = manager.hooks.approve_call(ToolCall(tool_call_id="c", tool_name="x"), ApprovalContext(harness_id="h"))
    assert decision.status is ApprovalStatus.DENIED


# -- replacement policies under other names -------------------------------------------


class OrgToolApproval:
    """Enforces tool_approval its own way (everything set is denied), under another name."""

    @hookimpl
    @enforces("tool_approval")
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.provider_executed or call.tool_name not in context.tool_approval:
            return None
        return ApprovalDecision(ApprovalStatus.DENIED, "org tool approval denies configured tools")


@pytest.mark.anyio
async def test_a_replacement_tool_approval_policy_under_another_name_is_accepted() -> None:
    ran: list[str] = []
    manager = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "tool-approval"},
                                    plugins=[OrgToolApproval()])
    agent = ScriptedAdapter([[[CallHost("echo", {})], [EchoResults()]]]).agent(
        tools=[echo(ran)], tool_approval={"echo": "approved"}, plugin_manager=manager)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "org tool approval denies" in (denied.reason or "") and ran == []


def test_without_any_declared_enforcer_the_setting_is_refused() -> None:
    class Undeclared:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> None:
            return None

    manager = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "permission-mode"},
                                    plugins=[Undeclared()])
    with pytest.raises(HarnessConfigurationError, match="but the core plugin 'permission-mode' that enforces it"):
        ScriptedAdapter([[[EchoResults()]]]).agent(permission_mode="allow-reads", plugin_manager=manager)


def test_enforces_refuses_unknown_settings() -> None:
    with pytest.raises(ValueError, match="enforces"):
        enforces("tool-approval")  # type: ignore[arg-type]


# -- built-in calls and the approval hook ---------------------------------------------


class Watcher:
    """Undeclared: may decide anything, so every built-in call must ask the hook."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> None:
        self.seen.append(call.tool_name)


def test_the_fast_path_is_decided_by_declarations_not_names() -> None:
    assert not isolated_plugin_manager().hooks.builtin_calls_need_approval(PermissionMode.ALLOW_ALL)
    assert isolated_plugin_manager().hooks.builtin_calls_need_approval(PermissionMode.ALLOW_EDITS)
    assert isolated_plugin_manager(Watcher()).hooks.builtin_calls_need_approval(PermissionMode.ALLOW_ALL)

    class Wrapper:
        @hookimpl(wrapper=True)
        @enforces("permission_mode")  # a wrapper may change any decision: it never counts
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Generator[None, Any, Any]:
            return (yield)

    assert isolated_plugin_manager(Wrapper()).hooks.builtin_calls_need_approval(PermissionMode.ALLOW_ALL)
    # The core policies renamed are still recognised: it is what they declare that counts.
    renamed = isolated_plugin_manager(core=False)
    from harness_core.plugins.policies import PermissionModePolicy, ToolApprovalPolicy

    renamed.register(PermissionModePolicy(), "org-modes")
    renamed.register(ToolApprovalPolicy(), "org-tools")
    assert not renamed.hooks.builtin_calls_need_approval(PermissionMode.ALLOW_ALL)
    assert renamed.hooks.enforcers("permission_mode") == ["org-modes"]


@pytest.mark.anyio
async def test_under_allow_all_an_undeclared_policy_sees_every_builtin_call(tmp_path: Path) -> None:
    watcher = Watcher()
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "echo hi"})], [EchoResults()]]], workspace=tmp_path)
    agent = adapter.agent(plugins=[watcher])
    await agent.generate(session=await agent.create_session(), prompt="go")
    assert adapter.starts[0].builtin_approvals is True and watcher.seen == ["bash"]
