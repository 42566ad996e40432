"""A ``wrapper=True`` implementation on every hook: its body runs and its change takes effect.

Every hook is called through pluggy, so a wrapper sees the inner results (on a collect
hook, the list of every plugin's results) and what it returns is what the core uses.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import click
import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    BuiltinTool,
    ExecutionContext,
    FilterRequest,
    HarnessTool,
    PermissionMode,
    ProjectionContext,
    ToolCall,
    ToolContext,
    ToolKind,
    ToolOutput,
    TurnState,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)
from harness_core.parts.models import Part, TextDeltaPart, ToolApprovalRequestPart
from harness_core.testing import CallHost, EchoResults, Say, ScriptedAdapter

Wrapped = Generator[None, Any, Any]


def tool(name: str, result: str = "ran") -> HarnessTool:
    return define_harness_tool(name=name, description=f"The {name} tool.", input={"type": "object"},
                               execute=lambda input, ctx: result)


def manager(*plugins: object) -> Any:
    return create_plugin_manager(load_entry_points=False, env={}, plugins=plugins)


def test_a_wrapper_on_harness_adapters_replaces_a_factory() -> None:
    seen: list[list[str]] = []

    class Pack:
        @hookimpl
        def harness_adapters(self) -> dict[str, Any]:
            return {"fake": lambda **settings: "original"}

    class Wrapper:
        @hookimpl(wrapper=True)
        def harness_adapters(self) -> Wrapped:
            results = yield
            seen.append([key for result in results for key in result])
            return [{"fake": lambda **settings: "wrapped"}]

    m = create_plugin_manager(load_entry_points=False, env={})
    m.register(Pack(), "pack")
    m.register(Wrapper(), "swap")
    assert m.hooks.adapter_factory("fake")() == "wrapped"
    assert seen == [["fake"]]
    assert m.hooks.adapters()["fake"][0] == "swap"  # the wrapper made the mapping


def test_a_wrapper_on_harness_declare_builtins_adds_a_builtin() -> None:
    extra = BuiltinTool(name="grep", native_name="Grep", kind=ToolKind.READ_ONLY)

    class Adapter:
        @hookimpl
        def harness_declare_builtins(self, harness_id: str) -> list[BuiltinTool] | None:
            return [BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH)] if harness_id == "x" else None

    class Wrapper:
        @hookimpl(wrapper=True)
        def harness_declare_builtins(self, harness_id: str) -> Wrapped:
            results = yield
            return [*results, [extra]] if harness_id == "x" else results

    names = [t.name for t in manager(Adapter(), Wrapper()).hooks.builtins("x")]
    assert names == ["bash", "grep"]


def test_a_wrapper_on_harness_tools_drops_a_tool_and_results_stay_attributed() -> None:
    class Pack:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            return [tool("keep"), tool("drop")]

    class Other:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            return [tool("other")]

    class Wrapper:
        @hookimpl(wrapper=True)
        def harness_tools(self) -> Wrapped:
            results = yield
            return [result if not any(t.name == "drop" for t in result) else [t for t in result if t.name != "drop"]
                    for result in results]

    m = create_plugin_manager(load_entry_points=False, env={})
    m.register(Pack(), "pack")
    m.register(Other(), "other-pack")
    m.register(Wrapper(), "trimmer")
    tools = m.hooks.tools()
    assert sorted(tools) == ["keep", "other"]
    assert tools["other"][0] == "other-pack"  # untouched results keep their plugin
    assert tools["keep"][0] == "trimmer"  # a list the wrapper made is the wrapper's


def test_a_wrapper_on_harness_filter_tools_removes_one_more_name() -> None:
    class Policy:
        @hookimpl
        def harness_filter_tools(self, tools: Sequence[Any], request: FilterRequest) -> list[str]:
            return ["a"]

    class Wrapper:
        @hookimpl(wrapper=True)
        def harness_filter_tools(self, tools: Sequence[Any], request: FilterRequest) -> Wrapped:
            results = yield
            return [*results, ["b"]]

    removed = manager(Policy(), Wrapper()).hooks.filter_tools([tool("a"), tool("b"), tool("c")],
                                                              FilterRequest(harness_id="x"))
    assert removed == {"a", "b"}


def test_a_wrapper_on_harness_execute_tool_rewrites_the_output() -> None:
    class Redact:
        @hookimpl(wrapper=True)
        def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Wrapped:
            awaitable = yield

            async def redacted() -> ToolOutput:
                output = await awaitable
                return ToolOutput(output.content.replace("secret", "[redacted]"), output.is_error)

            return redacted()

    import anyio

    secret = tool("t", "the secret is 42")
    context = ExecutionContext(tool=secret, tool_context=ToolContext(tool_call_id="c", tool_name="t"))
    output = anyio.run(manager(Redact()).hooks.execute_tool, ToolCall(tool_call_id="c", tool_name="t"), context)
    assert output.content == "the [redacted] is 42"


def test_a_wrapper_on_harness_project_event_edits_the_parts() -> None:
    class Shout:
        @hookimpl(wrapper=True)
        def harness_project_event(self, event: object, context: ProjectionContext) -> Wrapped:
            parts = yield
            return [p.model_copy(update={"text": p.text.upper()}) if isinstance(p, TextDeltaPart) else p
                    for p in parts]

    parts: list[Part] = manager(Shout()).hooks.project_event(
        TextDeltaPart(id="t", text="quiet"), ProjectionContext(harness_id="x"))
    assert [p.text for p in parts if isinstance(p, TextDeltaPart)] == ["QUIET"]


def test_a_wrapper_on_harness_cli_commands_renames_a_command() -> None:
    class Commands:
        @hookimpl
        def harness_cli_commands(self) -> list[click.Command]:
            return [click.Command("hello")]

    class Wrapper:
        @hookimpl(wrapper=True)
        def harness_cli_commands(self) -> Wrapped:
            results = yield
            return [[click.Command(f"x-{c.name}") for c in result] for result in results]

    assert [c.name for _, c in manager(Commands(), Wrapper()).hooks.cli_commands()] == ["x-hello"]


def test_a_wrapper_on_harness_approve_call_sees_every_decision_and_may_change_them() -> None:
    seen: list[list[str]] = []

    class Allow:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
            return ApprovalDecision(ApprovalStatus.APPROVED, "fine")

    class Ask:
        @hookimpl(wrapper=True)
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Wrapped:
            decisions = yield
            seen.append(sorted(f"{d.plugin}:{d.status.value}" for d in decisions))
            return [ApprovalDecision(ApprovalStatus.USER_APPROVAL, "a person decides", plugin="ask")
                    if d.status is ApprovalStatus.APPROVED else d for d in decisions]

    m = create_plugin_manager(load_entry_points=False, env={})
    m.register(Allow(), "allow")
    m.register(Ask(), "ask")
    echo = tool("echo")
    decision = m.hooks.approve_call(ToolCall(tool_call_id="c", tool_name="echo"),
                                    ApprovalContext(harness_id="x", tool=echo, permission_mode=PermissionMode.ALLOW_ALL))
    assert seen == [["allow:approved"]]
    assert (decision.status, decision.plugin) == (ApprovalStatus.USER_APPROVAL, "ask")


@pytest.mark.anyio
async def test_an_approval_wrapper_turning_approved_into_user_approval_pauses_the_turn() -> None:
    ran: list[str] = []

    def execute(input: Any, ctx: Any) -> str:
        ran.append("echo")
        return "echoed"

    echo = define_harness_tool(name="echo", description="Echo.", input={"type": "object"}, execute=execute)

    class AskInstead:
        @hookimpl(wrapper=True)
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Wrapped:
            decisions = yield
            return [ApprovalDecision(ApprovalStatus.USER_APPROVAL, "wrapper asks") if d.status is ApprovalStatus.APPROVED
                    else d for d in decisions]

    adapter = ScriptedAdapter([[[Say("calling"), CallHost("echo", {}, id="e1")], [EchoResults()]]])
    agent = adapter.agent(tools=[echo], tool_approval={"echo": "approved"}, plugins=[AskInstead()])
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "awaiting-approval" and session.state is TurnState.AWAITING_APPROVAL
    (request,) = [p for p in result.parts if isinstance(p, ToolApprovalRequestPart)]
    assert request.tool_call.tool_call_id == "e1"
    assert ran == []
