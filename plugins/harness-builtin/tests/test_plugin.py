"""The plugin as the core sees it: entry point, adapter factory, declared built-ins, CLI."""

from __future__ import annotations

from click.testing import CliRunner

from harness_core import BuiltinTool, ToolKind, ToolResources, create_plugin_manager
from harness_core.agent.harness_agent import HarnessAgent
from harness_core.cli import cli


def test_entry_point_registers_adapter_builtins_and_demo() -> None:
    manager = create_plugin_manager()
    record = next(r for r in manager.records() if r.name == "builtin")
    assert record.status == "loaded" and record.kind == "adapter"
    assert "builtin" in manager.hooks.adapters()
    builtins = {tool.name: tool for tool in manager.hooks.builtins("builtin")}
    assert list(builtins) == ["read", "write", "edit", "bash", "grep", "glob", "ls", "skill"]
    assert all(isinstance(t, BuiltinTool) and t.native_name == t.name for t in builtins.values())
    assert {n for n, t in builtins.items() if t.kind is ToolKind.READ_ONLY} == {"read", "grep", "glob", "ls", "skill"}
    assert builtins["bash"].kind is ToolKind.BASH and builtins["edit"].kind is ToolKind.EDIT
    assert builtins["read"].resources_for({"file_path": "a.py"}) == ToolResources(paths=("a.py",))
    assert builtins["bash"].resources_for({"command": "ls"}) == ToolResources(command="ls")
    assert builtins["grep"].resources_for({"pattern": "x"}) == ToolResources(paths=(".",))
    assert builtins["read"].input_schema["required"] == ["file_path"]
    from harness_builtin import plugin

    assert plugin.harness_declare_builtins("claude-code") is None
    assert [name for _, command in manager.hooks.cli_commands() if (name := command.name) == "demo"] == ["demo"]


def test_agent_sees_builtins_by_common_name() -> None:
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False)
    assert {"read", "write", "edit", "bash", "grep", "glob", "ls"} <= set(agent.tools)
    assert agent.adapter.supports_builtin_approvals and agent.adapter.supports_builtin_filtering


def test_help_lists_run_and_demo() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert "run" in result.output and "demo" in result.output
    assert "--permission-mode" in CliRunner().invoke(cli, ["run", "--help"]).output
