"""The policy as a plugin: layers and rule order, permission modes, MCP and host tools."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from harness_rules import RulesPolicy, baseline_resources

from harness_core import (
    ApprovalContext,
    ApprovalStatus,
    BuiltinTool,
    PermissionMode,
    ToolCall,
    ToolKind,
    ToolResources,
    create_plugin_manager,
    define_harness_tool,
)

if TYPE_CHECKING:
    from conftest import Layout


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _toml(**lists: list[str]) -> str:
    body = "\n".join(f"{key} = [{', '.join(repr(v).replace(chr(39), chr(34)) for v in values)}]"
                     for key, values in lists.items())
    return f"[permissions]\n{body}\n"


# -- Claude-style, Codex-style and pi-style built-in declarations -----------------------

def _claude(name: str, native: str, kind: ToolKind) -> BuiltinTool:
    return BuiltinTool(name=name, native_name=native, kind=kind,
                       resources=lambda data: baseline_resources([native], data) or ToolResources())


CLAUDE_BASH = _claude("bash", "Bash", ToolKind.BASH)
CLAUDE_READ = _claude("read", "Read", ToolKind.READ_ONLY)
CLAUDE_EDIT = _claude("edit", "Edit", ToolKind.EDIT)
CODEX_EXEC = _claude("bash", "exec_command", ToolKind.BASH)
PI_BASH = _claude("bash", "bash", ToolKind.BASH)


def _builtin_call(tool: BuiltinTool, tool_input: Mapping[str, Any], root: Path,
                  mode: PermissionMode = PermissionMode.ALLOW_ALL) -> tuple[ToolCall, ApprovalContext]:
    call = ToolCall(tool_call_id="c1", tool_name=tool.name, input=dict(tool_input), provider_executed=True,
                    native_tool_name=tool.native_name if tool.native_name != tool.name else None)
    context = ApprovalContext(harness_id="test", permission_mode=mode, tool=tool,
                              resources=tool.resources_for(tool_input), workspace_root=str(root))
    return call, context


# -- layers and order --------------------------------------------------------------------

@pytest.mark.parametrize("deny_in", ["user", "project", "local", "code"])
@pytest.mark.parametrize("allow_in", ["user", "project", "local", "code"])
def test_deny_beats_allow_whatever_the_layers(layout: Layout, deny_in: str, allow_in: str) -> None:
    files = {
        "user": layout.home / ".config" / "harness" / "rules.toml",
        "project": layout.ws / ".harness" / "rules.toml",
        "local": layout.ws / ".harness" / "rules.local.toml",
    }
    lists: dict[str, dict[str, list[str]]] = {layer: {} for layer in (*files, "code")}
    lists[allow_in].setdefault("allow", []).append("bash(git push *)")
    lists[deny_in].setdefault("deny", []).append("bash(git push *)")
    lists["project"].setdefault("ask", []).append("bash(git push --tags)")
    for layer, path in files.items():
        if lists[layer]:
            _write(path, _toml(**lists[layer]))
    policy = layout.policy(lists["code"] or None, discover=True)
    verdict = policy.check("bash", {"command": "git push origin"}, workspace_root=layout.ws)
    assert verdict.decision == "deny"
    assert verdict.rule is not None and verdict.rule.origin.layer == deny_in
    if deny_in != "code":
        assert verdict.rule.origin.source == str(files[deny_in])
        lines = files[deny_in].read_text().splitlines()
        assert lines[verdict.rule.origin.line - 1].startswith("deny = ")
    # ask beats allow too
    verdict = policy.check("bash", {"command": "git push --tags"}, workspace_root=layout.ws)
    assert verdict.decision == "deny"  # `git push *` is denied, which beats the ask


@pytest.mark.parametrize("order", [("allow", "ask", "deny"), ("deny", "ask", "allow"), ("ask", "deny", "allow")])
def test_order_inside_a_file_does_not_matter(layout: Layout, order: tuple[str, ...]) -> None:
    rules = {"allow": ["bash(git *)"], "ask": ["bash(git push *)"], "deny": ["bash(git push --force *)"]}
    text = "[permissions]\n" + "".join(f'{key} = ["{rules[key][0]}"]\n' for key in order)
    _write(layout.ws / ".harness" / "rules.toml", text)
    policy = layout.policy(discover=True)
    decisions = [policy.check("bash", {"command": c}, workspace_root=layout.ws).decision
                 for c in ("git status", "git push origin", "git push --force origin")]
    assert decisions == ["allow", "ask", "deny"]


def test_layers_listing_and_code_rules(layout: Layout) -> None:
    _write(layout.ws / ".harness" / "rules.toml", _toml(allow=["bash(ls)"]))
    policy = layout.policy({"deny": ["bash(rm *)"]}, discover=True)
    layers = policy.layers(layout.ws)
    assert [(layer.layer, layer.exists, [r.text for r in layer.rules]) for layer in layers] == [
        ("user", False, []), ("project", True, ["bash(ls)"]), ("local", False, []), ("code", True, ["bash(rm *)"]),
    ]


def test_files_are_reread_when_they_change(layout: Layout) -> None:
    path = _write(layout.ws / ".harness" / "rules.local.toml", _toml(allow=["bash(make *)"]))
    policy = layout.policy(discover=True, reload_interval=0)
    assert policy.check("bash", {"command": "make all"}, workspace_root=layout.ws).decision == "allow"
    path.write_text(_toml(deny=["bash(make *)"]))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert policy.check("bash", {"command": "make all"}, workspace_root=layout.ws).decision == "deny"
    path.unlink()
    assert policy.check("bash", {"command": "make all"}, workspace_root=layout.ws).decision == "none"


def test_project_files_follow_each_call_workspace_root(layout: Layout) -> None:
    other = layout.base / "other"
    _write(other / ".harness" / "rules.toml", _toml(deny=["bash(ls *)"]))
    policy = layout.policy(discover=True)
    call, context = _builtin_call(PI_BASH, {"command": "ls"}, other)
    assert policy.evaluate(call, context).decision == "deny"
    call, context = _builtin_call(PI_BASH, {"command": "ls"}, layout.ws)
    assert policy.evaluate(call, context).decision == "none"


def test_invalid_discovered_file_fails_closed_with_file_and_line(layout: Layout) -> None:
    path = _write(layout.ws / ".harness" / "rules.toml", "[permissions]\nallow = [\n  \"bash(\",\n]\n")
    manager = create_plugin_manager(load_entry_points=False, plugins=[layout.policy(discover=True)])
    call, context = _builtin_call(CLAUDE_BASH, {"command": "ls"}, layout.ws)
    decision = manager.hooks.approve_call(call, context)
    assert decision.status is ApprovalStatus.DENIED
    assert decision.reason is not None and f"{path}:3" in decision.reason


def test_bad_code_rules_and_explicit_files_raise_at_construction(layout: Layout) -> None:
    from harness_rules import RulesFileError

    with pytest.raises(RulesFileError, match=r"<code>: allow\[0\]"):
        RulesPolicy({"allow": ["bash()"]})
    bad = _write(layout.base / "bad.toml", "[permissions]\ndeny = [\"read(//)\"]\n")
    with pytest.raises(RulesFileError, match=rf"{bad}:2:"):
        RulesPolicy(files=[bad])


# -- modes through the plugin manager ------------------------------------------------------

RULES = {
    "allow": ["bash(git status)", "edit(./src/**)"],
    "ask": ["bash(git push *)", "read(./docs/**)"],
    "deny": ["bash(rm *)", "read(./.env)"],
}

# (tool, input, mode, merged status, deciding plugin)
MODE_CASES = [
    # an allow pre-approves what the mode would have asked
    (CLAUDE_BASH, {"command": "git status"}, "allow-reads", "approved", "rules"),
    (CLAUDE_BASH, {"command": "git status"}, "allow-edits", "approved", "rules"),
    (CLAUDE_BASH, {"command": "git status"}, "allow-all", "approved", "rules"),
    (CLAUDE_EDIT, {"file_path": "src/a.py"}, "allow-reads", "approved", "rules"),
    # an explicit ask holds under every mode
    (CLAUDE_BASH, {"command": "git push"}, "allow-all", "user-approval", "rules"),
    (CLAUDE_BASH, {"command": "git push"}, "allow-reads", "user-approval", "rules"),
    (CLAUDE_READ, {"file_path": "docs/readme.md"}, "allow-all", "user-approval", "rules"),
    # an explicit deny holds under every mode
    (CLAUDE_BASH, {"command": "rm -rf x"}, "allow-all", "denied", "rules"),
    (CLAUDE_BASH, {"command": "git status; rm -rf x"}, "allow-edits", "denied", "rules"),
    (CLAUDE_READ, {"file_path": ".env"}, "allow-all", "denied", "rules"),
    # no matching rule: the mode decides
    (CLAUDE_BASH, {"command": "make"}, "allow-all", "approved", "permission-mode"),
    (CLAUDE_BASH, {"command": "make"}, "allow-edits", "user-approval", "permission-mode"),
    (CLAUDE_EDIT, {"file_path": "README.md"}, "allow-reads", "user-approval", "permission-mode"),
    (CLAUDE_READ, {"file_path": "README.md"}, "allow-reads", "approved", "permission-mode"),
    # partly allowed is not allowed: the mode decides
    (CLAUDE_BASH, {"command": "git status && make"}, "allow-reads", "user-approval", "permission-mode"),
    # unparsable with bash rules in force: asked even under allow-all
    (CLAUDE_BASH, {"command": "[[ -f x ]] && make"}, "allow-all", "user-approval", "rules"),
]


@pytest.mark.parametrize(("tool", "tool_input", "mode", "status", "plugin"), MODE_CASES,
                         ids=[f"{c[0].native_name}-{next(iter(c[1].values()))}-{c[2]}" for c in MODE_CASES])
def test_modes_merge(layout: Layout, tool: BuiltinTool, tool_input: dict[str, Any], mode: str, status: str,
                     plugin: str) -> None:
    manager = create_plugin_manager(load_entry_points=False, plugins=())
    manager.register(layout.policy(RULES), name="rules")
    call, context = _builtin_call(tool, tool_input, layout.ws, PermissionMode(mode))
    decision = manager.hooks.approve_call(call, context)
    assert (decision.status.value, decision.plugin) == (status, plugin), decision.reason
    if plugin == "rules":
        assert {"rule", "source", "line", "layer", "decision", "matches"} <= set(decision.details)
        assert decision.fallback is False


def test_in_memory_plugin_registration_without_a_name(layout: Layout) -> None:
    policy = layout.policy(RULES)
    manager = create_plugin_manager(load_entry_points=False, plugins=[policy])
    call, context = _builtin_call(CLAUDE_BASH, {"command": "rm x"}, layout.ws, PermissionMode.ALLOW_ALL)
    decision = manager.hooks.approve_call(call, context)
    assert decision.status is ApprovalStatus.DENIED
    assert decision.plugin == manager.plugin_name(policy)
    assert decision.details["rule"] == "bash(rm *)" and decision.details["layer"] == "code"
    assert decision.details["line"] is None and decision.details["source"] == "<code>"


# -- names: natives, MCP, host tools --------------------------------------------------------

def test_native_names_hold_across_runtimes(layout: Layout) -> None:
    policy = layout.policy({"deny": ["Bash(rm *)"], "allow": ["exec_command(git status)"]})
    for tool in (CLAUDE_BASH, CODEX_EXEC, PI_BASH):
        call, context = _builtin_call(tool, {"command": "rm -rf x"} if tool is not CODEX_EXEC else {"cmd": "rm -rf x"},
                                      layout.ws)
        assert policy.evaluate(call, context).decision == "deny", tool
        call, context = _builtin_call(tool, {"command": "git status"} if tool is not CODEX_EXEC else
                                      {"cmd": "git status"}, layout.ws)
        assert policy.evaluate(call, context).decision == "allow", tool


def test_builtin_without_extractor_uses_baseline(layout: Layout) -> None:
    bare = BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH)
    policy = layout.policy({"deny": ["bash(rm *)"]})
    call = ToolCall(tool_call_id="c", tool_name="bash", input={"command": "ls; rm x"}, provider_executed=True,
                    native_tool_name="Bash")
    context = ApprovalContext(harness_id="t", tool=bare, resources=None, workspace_root=str(layout.ws))
    assert policy.evaluate(call, context).decision == "deny"
    # an undeclared native known by its native name
    context = ApprovalContext(harness_id="t", tool=None, resources=None, workspace_root=str(layout.ws))
    assert policy.evaluate(call, context).decision == "deny"


def _host(name: str, **kwargs: Any) -> ToolCall:
    return ToolCall(tool_call_id="h", tool_name=name, input=kwargs)


MCP_RULES = {
    "deny": ["mcp__github__delete_repo", "mcp__*__drop_*", "mcp__shell"],
    "ask": ["mcp__github"],
    "allow": ["mcp__github__get_issue", "mcp__docs"],
}

# (tool name, decision, rule)
MCP_CASES = [
    ("mcp__github__get_issue", "ask", "mcp__github"),
    ("mcp__github__delete_repo", "deny", "mcp__github__delete_repo"),
    ("mcp__github__create_issue", "ask", "mcp__github"),
    ("mcp__db__drop_table", "deny", "mcp__*__drop_*"),
    ("mcp__docs__search", "allow", "mcp__docs"),
    ("mcp__docs", "none", None),
    ("mcp__docsx__search", "none", None),
    ("mcp__githubx__get_issue", "none", None),
    ("mcp__shell__run", "deny", "mcp__shell"),
    ("github__get_issue", "none", None),
]


@pytest.mark.parametrize(("name", "decision", "rule"), MCP_CASES, ids=[c[0] for c in MCP_CASES])
def test_mcp_names_and_prefixes(layout: Layout, name: str, decision: str, rule: str | None) -> None:
    policy = layout.policy(MCP_RULES)
    verdict = policy.evaluate(_host(name), ApprovalContext(harness_id="t", workspace_root=str(layout.ws)))
    assert verdict.decision == decision, verdict.reason
    assert (verdict.rule.text if verdict.rule else None) == rule


def test_mcp_names_seen_through_the_native_name(layout: Layout) -> None:
    policy = layout.policy({"deny": ["mcp__host__echo"]})
    call = ToolCall(tool_call_id="h", tool_name="echo", input={}, native_tool_name="mcp__host__echo")
    assert policy.evaluate(call, ApprovalContext(harness_id="claude-code")).decision == "deny"


def test_host_tools_with_and_without_resources(layout: Layout) -> None:
    export = define_harness_tool(
        name="export_file", description="Copy a file out.",
        input={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        resources=lambda data: ToolResources(paths=(data["path"],)),
        execute=lambda data, ctx: "ok",
    )
    ping = define_harness_tool(name="ping", description="Ping.", input={"type": "object"}, execute=lambda d, c: "pong")
    policy = layout.policy({"deny": ["export_file(./secrets/**)", "export_file(./.env)"],
                            "allow": ["export_file(./src/**)", "ping(./x)"], "ask": ["ping"]})
    for path, expected in (("secrets/key.pem", "deny"), ("src/env_link", "deny"), ("src/a.py", "allow"),
                           ("docs/readme.md", "none")):
        assert policy.check(export, {"path": path}, workspace_root=layout.ws).decision == expected, path
    # a tool without resources is matched by name only: the specifier rule cannot match it
    verdict = policy.check(ping, {}, workspace_root=layout.ws)
    assert verdict.decision == "ask" and verdict.rule is not None and verdict.rule.text == "ping"


def test_rules_never_cross_tools(layout: Layout) -> None:
    fetch = define_harness_tool(
        name="fetch_file", description="Read a file.", input={"type": "object"},
        resources=lambda data: ToolResources(paths=(data["path"],)), execute=lambda d, c: "",
    )
    runner = define_harness_tool(
        name="runner", description="Run.", input={"type": "object"},
        resources=lambda data: ToolResources(command=data["command"]), execute=lambda d, c: "",
    )
    policy = layout.policy({"deny": ["read(./.env)", "bash(rm *)", "fetch_file", "read(./src/**)"]},
                           guard_arguments=False)
    guarded = layout.policy({"deny": ["read(./src/**)"]})  # the default: deny rules guard the shell
    assert guarded.check("bash", {"command": "ls src"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check(runner, {"command": "rm -rf /"}, workspace_root=layout.ws).decision == "none"
    assert policy.check("edit", {"file_path": ".env"}, workspace_root=layout.ws).decision == "none"
    assert policy.check("bash", {"command": "ls src"}, workspace_root=layout.ws).decision == "none"
    assert policy.check("webSearch", {"query": ".env"}, workspace_root=layout.ws).decision == "none"
    assert policy.check(fetch, {"path": "README.md"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("read", {"file_path": "README.md"}, workspace_root=layout.ws).decision == "none"


def test_wildcard_tools_read_specifiers_per_call(layout: Layout) -> None:
    runner = define_harness_tool(
        name="runner", description="Run.", input={"type": "object"},
        resources=lambda data: ToolResources(command=data["command"]), execute=lambda d, c: "",
    )
    policy = layout.policy({"deny": ["*(./secrets/**)", "*(curl *)"]})
    assert policy.check("read", {"file_path": "secrets/key.pem"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("bash", {"command": "echo hi > secrets/x"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check(runner, {"command": "curl http://x"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("read", {"file_path": "src/a.py"}, workspace_root=layout.ws).decision == "none"


def test_engines_are_cached_until_a_file_changes(layout: Layout) -> None:
    path = _write(layout.ws / ".harness" / "rules.toml", _toml(allow=["bash(ls)"]))
    policy = layout.policy(discover=True, reload_interval=0)
    first = policy.engine(str(layout.ws))
    assert policy.engine(str(layout.ws)) is first
    path.write_text(_toml(allow=["bash(ls)", "bash(pwd)"]))
    second = policy.engine(str(layout.ws))
    assert second is not first
    assert [r.text for r in second.rules if r.origin.layer != "builtin"] == ["bash(ls)", "bash(pwd)"]


def test_files_are_checked_at_most_once_a_second_without_a_stat_per_decision(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(layout.ws / ".harness" / "rules.toml", _toml(allow=["bash(make *)"]))
    policy = layout.policy(discover=True)
    assert policy.check("bash", {"command": "make all"}, workspace_root=layout.ws).decision == "allow"
    calls: list[str] = []
    real_stat = os.stat

    def counting_stat(target: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        calls.append(str(target))
        return real_stat(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    for _ in range(50):
        policy.engine(str(layout.ws))
    assert not [c for c in calls if c.endswith(".toml")]
    monkeypatch.setattr(os, "stat", real_stat)
    path.write_text(_toml(deny=["bash(make *)"]))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    time.sleep(1.1)
    assert policy.check("bash", {"command": "make all"}, workspace_root=layout.ws).decision == "deny"
