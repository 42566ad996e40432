"""HarnessAgent construction: the merged tool set and every configuration error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic
import pytest

from harness_core import (
    BuiltinTool,
    HarnessAgent,
    HarnessConfigurationError,
    HarnessTool,
    PermissionMode,
    ToolNameConflictError,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)
from harness_core.testing import ScriptedAdapter


def echo_tool(name: str = "echo", **options: Any) -> HarnessTool:
    return define_harness_tool(
        name=name, description="Echo text.",
        input={"type": "object", "properties": {"text": {"type": "string"}}},
        execute=lambda input, ctx: input.get("text", ""), **options,
    )


class Account(pydantic.BaseModel):
    user_id: str


class Locale(pydantic.BaseModel):
    language: str = "en"


def account_tool() -> HarnessTool:
    return define_harness_tool(name="account", description="Load the account.", input={"type": "object"},
                               context_schema=Account, execute=lambda input, ctx: ctx.context.user_id)


def locale_tool() -> HarnessTool:
    return define_harness_tool(name="locale", description="The locale.", input={"type": "object"},
                               context_schema=Locale, execute=lambda input, ctx: ctx.context.language)


class ToolPack:
    """A tool-pack plugin contributing ``echo``."""

    @hookimpl
    def harness_tools(self) -> Sequence[HarnessTool]:
        return [echo_tool()]


def adapter(**options: Any) -> ScriptedAdapter:
    return ScriptedAdapter([], **options)


# -- the merged tool set ---------------------------------------------------------------


def test_tools_merge_builtins_by_common_name_natives_and_host_tools() -> None:
    agent = adapter().agent(tools=[echo_tool()])
    tools = agent.tools
    assert sorted(tools) == ["NotebookEdit", "bash", "echo", "edit", "glob", "read", "write"]
    assert isinstance(tools["bash"], BuiltinTool) and tools["bash"].native_name == "Bash"
    assert isinstance(tools["NotebookEdit"], BuiltinTool)  # a native without a common name
    assert isinstance(tools["echo"], HarnessTool)
    assert "Bash" not in tools
    with pytest.raises(TypeError):
        tools["x"] = echo_tool("x")  # type: ignore[index]
    assert agent.harness_id == "scripted"
    assert set(agent.builtins) == {"NotebookEdit", "bash", "edit", "glob", "read", "write"}
    assert set(agent.host_tools) == {"echo"}


def test_tools_accept_a_mapping_keyed_by_name() -> None:
    agent = adapter().agent(tools={"echo": echo_tool()})
    assert "echo" in agent.tools
    with pytest.raises(HarnessConfigurationError, match=r"tools\['other'\] is the tool named 'echo'"):
        adapter().agent(tools={"other": echo_tool()})
    with pytest.raises(HarnessConfigurationError, match=r"tools\[0\] must be a HarnessTool"):
        adapter().agent(tools=[{"name": "x"}])


def test_tool_packs_are_included_and_clashes_name_both_sources() -> None:
    agent = adapter().agent(plugins=[ToolPack()])
    assert "echo" in agent.host_tools
    with pytest.raises(ToolNameConflictError, match=r"'echo' is given in the tools= argument and contributed by plugin"):
        adapter().agent(tools=[echo_tool()], plugins=[ToolPack()])
    alone = adapter().agent(tools=[echo_tool()], plugins=[ToolPack()], include_plugin_tools=False)
    assert list(alone.host_tools) == ["echo"]


def test_duplicate_tool_names_and_builtin_names_conflict() -> None:
    with pytest.raises(ToolNameConflictError, match="two tools named 'echo'"):
        adapter().agent(tools=[echo_tool(), echo_tool()])
    with pytest.raises(ToolNameConflictError, match=r"host tool 'bash' .* name of a built-in tool of harness 'scripted'"):
        adapter().agent(tools=[echo_tool("bash")])


def test_harness_by_id_uses_the_adapter_factory_and_options() -> None:
    made: list[dict[str, Any]] = []

    class Plugin:
        @hookimpl
        def harness_adapters(self) -> dict[str, Any]:
            def factory(**options: Any) -> ScriptedAdapter:
                made.append(options)
                return ScriptedAdapter([], harness_id="by-id")
            return {"by-id": factory}

        @hookimpl
        def harness_declare_builtins(self, harness_id: str) -> list[BuiltinTool] | None:
            return [] if harness_id == "by-id" else None

    manager = create_plugin_manager(load_entry_points=False, plugins=[Plugin()])
    agent = HarnessAgent(harness="by-id", harness_options={"model": "m"}, plugin_manager=manager)
    assert agent.harness_id == "by-id" and made == [{"model": "m"}]
    with pytest.raises(HarnessConfigurationError, match=r"no adapter plugin provides harness 'nope' \(available: by-id\)"):
        HarnessAgent(harness="nope", plugin_manager=manager)
    with pytest.raises(HarnessConfigurationError, match="harness must be a harness id"):
        HarnessAgent(harness=42, plugin_manager=manager)  # type: ignore[arg-type]
    with pytest.raises(HarnessConfigurationError, match="harness_options only applies"):
        HarnessAgent(harness=ScriptedAdapter([]), harness_options={"x": 1}, plugin_manager=manager)


def test_plugins_are_isolated_per_agent() -> None:
    shared = create_plugin_manager(load_entry_points=False)
    first = adapter().agent(plugins=[ToolPack()])
    second = adapter().agent(plugin_manager=shared)
    assert "echo" in first.host_tools and "echo" not in second.host_tools
    assert first.plugin_manager is not second.plugin_manager

    class Broken:
        @hookimpl
        def harness_not_a_hook(self) -> None:
            pass

    with pytest.warns(UserWarning), pytest.raises(HarnessConfigurationError, match="could not be registered"):
        adapter().agent(plugins=[Broken()])


# -- filtering ---------------------------------------------------------------------------


def test_active_and_inactive_together_is_an_error() -> None:
    with pytest.raises(HarnessConfigurationError, match="either active_tools or inactive_tools, not both"):
        adapter().agent(active_tools=["bash"], inactive_tools=["read"])


def test_a_filtered_name_that_is_no_tool_is_an_error() -> None:
    with pytest.raises(HarnessConfigurationError, match=r"inactive_tools names 'shell', which is no tool of this agent"):
        adapter().agent(inactive_tools=["shell"])
    with pytest.raises(HarnessConfigurationError, match=r"active_tools names 'Bash', 'zzz'"):
        adapter().agent(tools=[echo_tool()], active_tools=["Bash", "zzz", "echo"])
    with pytest.raises(HarnessConfigurationError, match="must be a list of tool names"):
        adapter().agent(inactive_tools="bash")


def test_filtering_builtins_needs_native_filtering_or_approvals() -> None:
    bare = dict(supports_builtin_approvals=False, supports_builtin_filtering=False)
    with pytest.raises(HarnessConfigurationError, match="can neither filter its built-in tools natively nor deny them"):
        adapter(**bare).agent(inactive_tools=["bash"])
    with pytest.raises(HarnessConfigurationError, match=r"built-ins .*bash.* cannot be made inactive"):
        adapter(**bare).agent(tools=[echo_tool()], active_tools=["echo", "read"])
    # host tools alone can always be filtered
    assert adapter(**bare).agent(tools=[echo_tool()], inactive_tools=["echo"]).inactive_tools == {"echo"}
    # either mechanism is enough
    adapter(supports_builtin_approvals=False, supports_builtin_filtering=True).agent(inactive_tools=["bash"])
    adapter(supports_builtin_approvals=True, supports_builtin_filtering=False).agent(inactive_tools=["bash"])


# -- approvals ---------------------------------------------------------------------------


def test_permission_mode_needs_builtin_approvals() -> None:
    with pytest.raises(HarnessConfigurationError, match="permission_mode 'allow-edits' needs built-in approvals"):
        adapter(supports_builtin_approvals=False).agent(permission_mode="allow-edits")
    assert adapter(supports_builtin_approvals=False).agent().permission_mode is PermissionMode.ALLOW_ALL
    assert adapter().agent(permission_mode="allow-reads").permission_mode is PermissionMode.ALLOW_READS
    with pytest.raises(HarnessConfigurationError, match="permission_mode 'ask' is not one of: allow-all, allow-edits"):
        adapter().agent(permission_mode="ask")


def test_tool_approval_statuses_and_keys_are_checked() -> None:
    with pytest.raises(HarnessConfigurationError,
                       match=r"tool_approval\['echo'\]: 'ask' is not an approval status \(valid: not-applicable"):
        adapter().agent(tools=[echo_tool()], tool_approval={"echo": "ask"})
    with pytest.raises(HarnessConfigurationError, match=r"tool_approval\['nope'\]: no host tool is named 'nope'"):
        adapter().agent(tools=[echo_tool()], tool_approval={"nope": "approved"})
    with pytest.raises(HarnessConfigurationError, match=r"'bash' is a built-in tool .* use permission_mode"):
        adapter().agent(tool_approval={"bash": "user-approval"})
    agent = adapter().agent(tools=[echo_tool()], tool_approval={"echo": lambda call, ctx: "denied"})
    assert callable(agent.tool_approval["echo"])
    for status in ("not-applicable", "approved", "user-approval", "denied"):
        assert adapter().agent(tools=[echo_tool()], tool_approval={"echo": status}).tool_approval["echo"] == status


# -- tools context -------------------------------------------------------------------------


def test_tools_context_without_any_context_schema_is_an_error() -> None:
    with pytest.raises(HarnessConfigurationError, match="no host tool declares a context_schema"):
        adapter().agent(tools=[echo_tool()], tools_context={"echo": {}})


def test_tools_context_is_required_when_a_schema_requires_it() -> None:
    with pytest.raises(HarnessConfigurationError, match="tools_context is required: tool\\(s\\) 'account'"):
        adapter().agent(tools=[account_tool()])
    # an all-defaults schema is optional
    assert adapter().agent(tools=[locale_tool()]).tools_context is None
    # prepare_call supplies it per call instead
    adapter().agent(tools=[account_tool()], prepare_call=lambda options: {"account": {"user_id": "u"}})
    with pytest.raises(HarnessConfigurationError, match="has no entry for tool 'account'"):
        adapter().agent(tools=[account_tool(), locale_tool()], tools_context={"locale": {}})


def test_tools_context_entries_are_validated() -> None:
    with pytest.raises(HarnessConfigurationError, match=r"tools_context\['account'\] does not match .*user_id"):
        adapter().agent(tools=[account_tool()], tools_context={"account": {"user": "u"}})
    with pytest.raises(HarnessConfigurationError, match=r"tools_context\['echo'\]: no host tool named 'echo' declares"):
        adapter().agent(tools=[account_tool(), echo_tool()], tools_context={"account": {"user_id": "u"}, "echo": {}})
    agent = adapter().agent(tools=[account_tool()], tools_context={"account": Account(user_id="u")})
    assert agent.tools_context is not None and "account" in agent.tools_context


def test_other_options_are_checked() -> None:
    with pytest.raises(HarnessConfigurationError, match="on_error must be"):
        adapter().agent(on_error="ignore")
    with pytest.raises(HarnessConfigurationError, match="tool_timeout must be a positive number"):
        adapter().agent(tool_timeout=0)
    with pytest.raises(HarnessConfigurationError, match="prepare_call must be callable"):
        adapter().agent(prepare_call="x")
    with pytest.raises(HarnessConfigurationError, match="instructions must be a string"):
        adapter().agent(instructions=3)
