"""Issue 15's requirements that the corpus does not show by decision alone: rules that can
never match are refused with file:line, paths resolve like the OS for the process opening
them, case-insensitive file systems, search exclusion at the policy level."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from harness_rules import RulesFileError, RulesPolicy, load_rules_file
from harness_rules._paths import Bases, compile_path_pattern

from harness_core import ApprovalContext, BuiltinTool, ToolCall, ToolKind, ToolResources

if TYPE_CHECKING:
    from conftest import Layout


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        ("read(./" + "x" * 300 + ")", "a file name is at most 255 bytes"),
        ("read(./a[!\\u0001-\\U0010ffff]b)", "matches no character"),  # only NUL: never in a name
        ("read(./" + "d/" * 2100 + "x)", "paths are at most 4096 bytes"),
        ("bash(if *)", "shell keyword 'if'"),
        ("bash([[ *)", "shell keyword '[['"),
        ("bash(# comment)", "shell keyword"),
    ],
)
def test_rules_that_can_never_match_are_refused_with_file_and_line(tmp_path: Path, rule: str,
                                                                  fragment: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(f'[permissions]\nallow = ["bash(ls)"]\ndeny = [\n  "{rule}",\n]\n')
    with pytest.raises(RulesFileError) as caught:
        load_rules_file(path, "project")
    assert f"{path}:4" in str(caught.value) and fragment in str(caught.value)


def test_proc_self_cwd_is_the_workspace_not_the_policy_process(layout: Layout, monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the policy's own working directory is not the workspace
    policy = layout.policy({"deny": ["read(./.env)"]})
    for tool, data in (("read", {"file_path": "/proc/self/cwd/.env"}),
                       ("bash", {"command": "cat /proc/self/cwd/.env"}),
                       ("bash", {"command": "cd src && cat /proc/self/cwd/../.env"}),
                       ("bash", {"command": "cat /proc/thread-self/cwd/src/env_link"})):
        assert policy.check(tool, data, workspace_root=layout.ws).decision == "deny", data
    assert policy.check("read", {"file_path": "/proc/self/cwd/src/a.py"}, workspace_root=layout.ws).decision == "none"


def test_dotdot_after_a_symlink_steps_out_of_the_target(layout: Layout) -> None:
    # src/outdir_link -> <outside>/dir, so src/outdir_link/../secret.txt is <outside>/secret.txt
    policy = layout.policy({"deny": [f"read(/{layout.outside}/secret.txt)"]})
    verdict = policy.check("read", {"file_path": "src/outdir_link/../secret.txt"}, workspace_root=layout.ws)
    assert verdict.decision == "deny", verdict.reason
    shell = policy.check("bash", {"command": "cat src/outdir_link/../secret.txt"}, workspace_root=layout.ws)
    assert shell.decision == "deny", shell.reason


def test_case_insensitive_file_systems_match_regardless_of_case(layout: Layout) -> None:
    pattern = compile_path_pattern("./.env")
    sensitive = Bases.for_root(str(layout.ws), str(layout.home))
    folded = Bases(sensitive.workspace, sensitive.home, casefold=True)
    upper = str(layout.ws / ".ENV")
    assert not pattern.matches(upper, False, sensitive)
    assert pattern.matches(upper, False, folded)


GREP = BuiltinTool(name="grep", native_name="grep", kind=ToolKind.READ_ONLY,
                   input_schema={"type": "object", "properties": {"pattern": {"type": "string"},
                                                                 "path": {"type": "string"},
                                                                 "exclude": {"type": "array"}}},
                   resources=lambda data: ToolResources(paths=(data.get("path") or ".",)))
CC_GREP = BuiltinTool(name="grep", native_name="Grep", kind=ToolKind.READ_ONLY,
                      input_schema={"type": "object", "properties": {"pattern": {"type": "string"}}},
                      resources=lambda data: ToolResources(paths=(data.get("path") or ".",)))


def _search(policy: RulesPolicy, tool: BuiltinTool, data: dict[str, Any], root: Path) -> Any:
    call = ToolCall(tool_call_id="g", tool_name=tool.name, input=data, provider_executed=True,
                    native_tool_name=tool.native_name)
    context = ApprovalContext(harness_id="test", tool=tool, resources=tool.resources_for(data),
                              workspace_root=str(root))
    return policy.evaluate(call, context)


def test_searches_name_what_to_exclude_and_excluding_it_is_enough(layout: Layout) -> None:
    policy = layout.policy({"deny": ["read(./.env)", "read(./secrets/**)"], "allow": ["read(./**)"]})
    first = _search(policy, GREP, {"pattern": "x", "path": "."}, layout.ws)
    assert first.decision == "deny"
    for path in ('".env"', '"secrets"', '"src/env_link"'):
        assert path in first.reason
    partial = _search(policy, GREP, {"pattern": "x", "exclude": [".env"]}, layout.ws)
    assert partial.decision == "deny" and '"secrets"' in partial.reason and '".env"' not in partial.reason
    # a link whose target is excluded is left out too (by the walk here, and by the tool)
    full = _search(policy, GREP, {"pattern": "x", "exclude": [".env", "secrets"]}, layout.ws)
    assert full.decision == "allow", full.reason
    # a search tool that cannot exclude (Claude Code's Grep) is still denied, whatever it passes
    ignored = _search(policy, CC_GREP, {"pattern": "x", "exclude": [".env", "secrets", "src/env_link"]}, layout.ws)
    assert ignored.decision == "deny" and "exclude" not in ignored.reason


def test_guard_opt_out_gives_arguments_back_to_the_program(layout: Layout) -> None:
    rules = {"deny": ["read(./.env)"], "allow": ["bash(cat *)"]}
    assert layout.policy(rules).check("bash", {"command": "cat .env"}, workspace_root=layout.ws).decision == "deny"
    off = layout.policy(rules, guard_arguments=False)
    assert off.check("bash", {"command": "cat .env"}, workspace_root=layout.ws).decision == "allow"
    assert off.check("bash", {"command": 'cat "$F"'}, workspace_root=layout.ws).decision == "allow"
    assert off.check("bash", {"command": "cat < .env"}, workspace_root=layout.ws).decision == "deny"
    assert os.path.exists(layout.ws / ".env")
