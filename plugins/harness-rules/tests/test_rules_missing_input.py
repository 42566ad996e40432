"""A built-in call whose input lacks what the rules need (a bash call without a command, a
read without a path) is asked about when deny or ask rules could have judged it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from harness_core import (
    ApprovalContext,
    ApprovalStatus,
    BuiltinTool,
    PermissionMode,
    ToolCall,
    ToolKind,
    ToolResources,
    create_plugin_manager,
)

if TYPE_CHECKING:
    from conftest import Layout

DENY_RM = {"deny": ["bash(rm *)"], "allow": ["bash(git status)"]}
DENY_ENV = {"deny": ["read(./.env)"]}

# (rules, tool, input, decision)
CASES: list[tuple[Mapping[str, list[str]], str, dict[str, Any], str]] = [
    (DENY_RM, "bash", {"commmand": "rm -rf /"}, "ask"),
    (DENY_RM, "bash", {}, "ask"),
    (DENY_RM, "Bash", {"description": "cleanup"}, "ask"),
    (DENY_RM, "exec_command", {"workdir": "."}, "ask"),
    (DENY_RM, "bash", {"command": None}, "ask"),
    (DENY_RM, "bash", {"command": 5}, "ask"),
    ({"ask": ["bash(git push *)"]}, "bash", {"commmand": "git push"}, "ask"),
    ({"deny": ["edit(./protected/**)"]}, "bash", {"commmand": "echo > protected/x"}, "ask"),
    ({"deny": ["read(./.env)"]}, "bash", {"commmand": "cat < .env"}, "ask"),
    (DENY_ENV, "read", {"filename": ".env"}, "ask"),
    (DENY_ENV, "Read", {}, "ask"),
    ({"ask": ["edit(./src/**)"]}, "Edit", {"old_string": "a"}, "ask"),
    ({"deny": ["edit(./src/**)"]}, "apply_patch", {"input": "not a patch"}, "ask"),
    # well-formed inputs are judged as before
    (DENY_RM, "bash", {"command": "rm -rf /"}, "deny"),
    (DENY_RM, "exec_command", {"cmd": "git status"}, "allow"),
    (DENY_RM, "bash", {"command": ""}, "none"),  # runs nothing
    (DENY_ENV, "read", {"file_path": ".env"}, "deny"),
    # nothing restrictive could have applied: the permission mode decides
    ({"allow": ["bash(git status)"]}, "bash", {"commmand": "rm x"}, "none"),
    ({"deny": ["bash(rm *)"]}, "read", {"filename": ".env"}, "none"),
    ({"deny": ["webSearch"]}, "bash", {}, "none"),
    # a rule for every call of the tool still decides
    ({"deny": ["bash"]}, "bash", {}, "deny"),
    ({"deny": ["bash", "bash(rm *)"]}, "bash", {"commmand": "x"}, "deny"),
    ({"allow": ["bash"], "deny": ["bash(rm *)"]}, "bash", {"commmand": "rm x"}, "ask"),
]


@pytest.mark.parametrize(("rules", "tool", "tool_input", "decision"), CASES,
                         ids=[f"{c[1]}-{c[2]}-{c[3]}" for c in CASES])
def test_missing_input_table(layout: Layout, rules: Mapping[str, list[str]], tool: str,
                             tool_input: dict[str, Any], decision: str) -> None:
    verdict = layout.policy(rules).check(tool, tool_input, workspace_root=layout.ws)
    assert verdict.decision == decision, verdict.reason


def test_reason_names_what_is_missing(layout: Layout) -> None:
    verdict = layout.policy(DENY_RM).check("bash", {"commmand": "rm x"}, workspace_root=layout.ws)
    assert "no `command` string" in verdict.reason and "`commmand`" in verdict.reason
    assert "`bash(rm *)`" in verdict.reason
    assert verdict.rule is None
    read = layout.policy(DENY_ENV).check("Read", {"filename": ".env"}, workspace_root=layout.ws)
    assert "read call's input names no file" in read.reason and "`filename`" in read.reason


def _claude_bash() -> BuiltinTool:
    """A Claude Code style declaration whose extractor returns no command for bad input."""

    def resources(data: Mapping[str, Any]) -> ToolResources:
        command = data.get("command")
        return ToolResources(command=command if isinstance(command, str) and command else None)

    return BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH, resources=resources)


@pytest.mark.parametrize("mode", list(PermissionMode))
def test_hook_asks_under_every_mode(layout: Layout, mode: PermissionMode) -> None:
    tool = _claude_bash()
    tool_input = {"commmand": "rm -rf /"}
    call = ToolCall(tool_call_id="c1", tool_name="bash", input=tool_input, provider_executed=True,
                    native_tool_name="Bash")
    context = ApprovalContext(harness_id="test", permission_mode=mode, tool=tool,
                              resources=tool.resources_for(tool_input), workspace_root=str(layout.ws))
    manager = create_plugin_manager(plugins=[layout.policy(DENY_RM)])
    decision = manager.hooks.approve_call(call, context)
    assert decision.status is ApprovalStatus.USER_APPROVAL, decision.reason
    assert "no `command` string" in decision.reason
