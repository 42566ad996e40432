"""The host-tool pipeline: validation, context, approval, execution, concurrency, client-side tools."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pydantic
import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessConfigurationError,
    PrepareCallOptions,
    ToolCall,
    ToolExecutionEnd,
    ToolInputError,
    ToolOutput,
    TurnState,
    define_harness_tool,
    hookimpl,
)
from harness_core.parts.models import (
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import CallHost, EchoResults, Say, ScriptedAdapter


def one_host_call(tool: str, input: Any, call_id: str = "c1") -> ScriptedAdapter:
    return ScriptedAdapter([[[CallHost(tool, input, id=call_id)], [EchoResults("model saw")]]])


def counted(name: str, result: Any = "ok", **options: Any) -> tuple[Any, list[Any]]:
    calls: list[Any] = []

    def execute(input: Any, ctx: Any) -> Any:
        calls.append(input)
        return result

    tool = define_harness_tool(name=name, description=f"The {name} tool.",
                               input=options.pop("input", {"type": "object", "properties": {"x": {"type": "integer"}}}),
                               execute=execute, **options)
    return tool, calls


# -- validation ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_invalid_input_gives_a_tool_error_and_never_executes() -> None:
    tool, calls = counted("count", input={"type": "object", "properties": {"x": {"type": "integer"}},
                                          "required": ["x"]})
    ends: list[ToolExecutionEnd] = []
    adapter = one_host_call("count", {"x": "three"})
    agent = adapter.agent(tools=[tool], on_tool_execution_end=ends.append)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert "invalid input for tool 'count'" in error.error and "$.x" in error.error
    assert calls == []
    (output,) = adapter.tool_results["c1"]
    assert output.is_error and "$.x" in output.content
    assert "$.x" in result.text  # the model can fix its call
    (end,) = ends
    assert isinstance(end.error, ToolInputError) and end.output is output


@pytest.mark.anyio
async def test_arguments_sent_as_json_text_are_decoded_once() -> None:
    tool, calls = counted("count")
    adapter = one_host_call("count", json.dumps({"x": 3}))
    agent = adapter.agent(tools=[tool])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert call.input == {"x": 3} and calls == [{"x": 3}]


@pytest.mark.anyio
async def test_an_unknown_tool_gets_an_error_result() -> None:
    adapter = one_host_call("nope", {})
    agent = adapter.agent()
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert call.dynamic is True
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert "Unknown tool 'nope'" in error.error
    assert adapter.tool_results["c1"][0].is_error


# -- context --------------------------------------------------------------------------------


class Account(pydantic.BaseModel):
    user_id: str
    plan: str = "free"


def account_tool(seen: list[Any]) -> Any:
    def execute(input: Any, ctx: Any) -> str:
        seen.append(ctx.context)
        return f"{ctx.context.user_id}/{ctx.context.plan}"

    return define_harness_tool(name="account", description="Load the account.", input={"type": "object"},
                               context_schema=Account, execute=execute)


@pytest.mark.anyio
async def test_context_is_validated_and_handed_to_execute() -> None:
    seen: list[Any] = []
    agent = one_host_call("account", {}).agent(tools=[account_tool(seen)],
                                               tools_context={"account": {"user_id": "u-1"}})
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "model saw account: u-1/free"
    assert seen == [Account(user_id="u-1")]
    # a session rebinds it
    rebound = await agent.create_session(tools_context={"account": {"user_id": "u-2", "plan": "pro"}})
    assert (await agent.generate(session=rebound, prompt="go")).text == "model saw account: u-2/pro"
    with pytest.raises(HarnessConfigurationError, match="does not match the context_schema"):
        await agent.create_session(tools_context={"account": {"plan": "pro"}})


@pytest.mark.anyio
async def test_missing_or_invalid_context_gives_a_generic_error_and_details_only_to_callbacks() -> None:
    seen: list[Any] = []
    ends: list[ToolExecutionEnd] = []
    contexts: list[Any] = [{}, {"account": {"user_id": 42, "plan": "SECRET-PLAN"}}]
    prepared: list[PrepareCallOptions] = []

    def prepare_call(options: PrepareCallOptions) -> Any:
        prepared.append(options)
        return contexts.pop(0)

    adapter = ScriptedAdapter([
        [[CallHost("account", {}, id="a1")], [EchoResults()]],
        [[CallHost("account", {}, id="a2")], [EchoResults()]],
    ])
    agent = adapter.agent(tools=[account_tool(seen)], prepare_call=prepare_call, on_tool_execution_end=ends.append)
    session = await agent.create_session()
    missing = await agent.generate(session=session, prompt="one", options={"tenant": "t1"})
    invalid = await agent.generate(session=session, prompt="two")
    assert seen == []
    for result, call_id in ((missing, "a1"), (invalid, "a2")):
        (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
        (output,) = adapter.tool_results[call_id]
        assert error.error == output.content
        assert output.is_error and "context validation failed" in output.content.lower()
        for leak in ("user_id", "SECRET-PLAN", "42", "Field required", "valid string"):
            assert leak not in output.content
    assert isinstance(ends[0].error, LookupError)
    assert isinstance(ends[1].error, pydantic.ValidationError) and "user_id" in str(ends[1].error)
    assert ends[1].tools_context == {"account": {"user_id": 42, "plan": "SECRET-PLAN"}}
    assert prepared[0].options == {"tenant": "t1"} and prepared[0].prompt == "one"
    assert prepared[0].session is session and prepared[1].options == {}
    # the context map in effect is exposed to the host in the result, never in parts
    assert invalid.tools_context == {"account": {"user_id": 42, "plan": "SECRET-PLAN"}}
    assert invalid.steps[0].tools_context == invalid.tools_context
    assert "SECRET-PLAN" not in json.dumps([p.to_json() for p in invalid.parts])


@pytest.mark.anyio
async def test_prepare_call_results_are_checked() -> None:
    agent = one_host_call("account", {}).agent(tools=[account_tool([])], prepare_call=lambda o: {"other": {}})
    session = await agent.create_session()
    with pytest.raises(HarnessConfigurationError, match="prepare_call returned a context for 'other'"):
        await agent.generate(session=session, prompt="go")
    assert session.state is TurnState.IDLE


# -- approval ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_denied_call_never_runs_execute_or_to_model_output() -> None:
    converted: list[Any] = []
    tool, calls = counted("danger", result={"secret": 1},
                          to_model_output=lambda value: converted.append(value) or "converted")
    adapter = one_host_call("danger", {})
    agent = adapter.agent(tools=[tool], tool_approval={"danger": "denied"})
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "danger" and denied.reason == "tool_approval for 'danger' is denied"
    assert calls == [] and converted == []
    (output,) = adapter.tool_results["c1"]
    assert output.is_error and output.content == "Execution denied: tool_approval for 'danger' is denied"
    assert not [p for p in result.parts if isinstance(p, ToolResultPart | ToolErrorPart)]


@pytest.mark.anyio
async def test_to_model_output_shapes_what_the_model_sees() -> None:
    tool, _ = counted("data", result={"rows": 3}, to_model_output=lambda value: f"{value['rows']} rows")
    adapter = one_host_call("data", {})
    agent = adapter.agent(tools=[tool])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert adapter.tool_results["c1"][0].content == "3 rows"
    assert result.text == "model saw data: 3 rows"


@pytest.mark.anyio
async def test_deny_beats_user_approval_whatever_the_plugin_order() -> None:
    class AskEverything:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
            return ApprovalDecision(ApprovalStatus.USER_APPROVAL, "ask first")

    for tool_setting in ("denied", lambda call, ctx: "denied"):
        tool, calls = counted("danger")
        adapter = one_host_call("danger", {})
        agent = adapter.agent(tools=[tool], tool_approval={"danger": tool_setting}, plugins=[AskEverything()])
        result = await agent.generate(session=await agent.create_session(), prompt="go")
        assert result.finish_reason == "stop" and not result.approval_requests
        assert [p.type for p in result.parts if p.type == "tool-output-denied"] == ["tool-output-denied"]
        assert calls == []


@pytest.mark.anyio
async def test_approval_policies_see_validated_input_resources_and_context() -> None:
    seen: list[tuple[Any, ApprovalContext]] = []

    class Recorder:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> None:
            seen.append((call.input, context))

    from harness_core import ToolResources

    tool, _ = counted("write_note", resources=lambda input: ToolResources(paths=("notes.md",)))
    agent = one_host_call("write_note", {"x": 1}).agent(tools=[tool], plugins=[Recorder()],
                                                        permission_mode="allow-edits")
    session = await agent.create_session(session_id="s-9")
    await agent.generate(session=session, prompt="go")
    ((input, context),) = seen
    assert input == {"x": 1}
    assert context.resources == ToolResources(paths=("notes.md",))
    assert (context.harness_id, context.session_id, context.permission_mode.value) == ("scripted", "s-9", "allow-edits")
    assert context.tool is agent.host_tools["write_note"]


# -- filtering ------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_inactive_host_tools_are_never_offered_and_a_call_is_execution_denied() -> None:
    tool, calls = counted("hidden")
    other, _ = counted("visible")
    for kwargs, reason in (({"inactive_tools": ["hidden"]}, "listed in inactive_tools"),
                           ({"active_tools": ["visible"]}, "not in active_tools")):
        adapter = one_host_call("hidden", {})
        agent = adapter.agent(tools=[tool, other], **kwargs)
        session = await agent.create_session()
        result = await agent.generate(session=session, prompt="go")
        assert [spec.name for spec in adapter.starts[0].host_tools] == ["visible"]
        assert [spec.name for spec in adapter.prompts[0].host_tools] == ["visible"]
        (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
        assert denied.reason == f"tool 'hidden' is inactive ({reason}) and may not be called"
        assert adapter.tool_results["c1"][0].content.startswith("Execution denied: tool 'hidden' is inactive")
        assert calls == []
        assert "hidden" in session.inactive_tools


@pytest.mark.anyio
async def test_filter_policies_remove_tools_after_the_agent_filter() -> None:
    from harness_core import FilterRequest

    requests: list[FilterRequest] = []

    class NoHidden:
        @hookimpl
        def harness_filter_tools(self, tools: Any, request: FilterRequest) -> list[str]:
            requests.append(request)
            return ["hidden", "not-a-tool"]

    tool, calls = counted("hidden")
    adapter = one_host_call("hidden", {})
    agent = adapter.agent(tools=[tool], plugins=[NoHidden()])
    session = await agent.create_session(session_id="s-f")
    result = await agent.generate(session=session, prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "removed by a harness_filter_tools policy" in (denied.reason or "")
    assert adapter.prompts[0].host_tools == [] and calls == []
    assert requests[0].session_id == "s-f"


# -- execution ------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_generator_tools_stream_preliminary_results() -> None:
    async def progress(input: Any, ctx: Any) -> AsyncIterator[str]:
        for step in ("25%", "50%", "done"):
            yield step

    tool = define_harness_tool(name="progress", description="Report progress.", input={"type": "object"},
                               execute=progress)
    adapter = one_host_call("progress", {})
    agent = adapter.agent(tools=[tool])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    results = [p for p in result.parts if isinstance(p, ToolResultPart)]
    assert [(r.output, r.preliminary) for r in results] == [("25%", True), ("50%", True), ("done", True),
                                                            ("done", None)]
    assert adapter.tool_results["c1"][0].content == "done"


@pytest.mark.anyio
async def test_read_only_tools_run_in_parallel_and_others_one_at_a_time() -> None:
    running = 0
    peak: dict[str, int] = {"read": 0, "write": 0}
    both_started = anyio.Event()
    started: list[str] = []

    def make(name: str, read_only: bool) -> Any:
        async def execute(input: Any, ctx: Any) -> str:
            nonlocal running
            running += 1
            kind = "read" if read_only else "write"
            peak[kind] = max(peak[kind], running)
            started.append(name)
            if read_only:
                if len([s for s in started if s.startswith("r")]) == 2:
                    both_started.set()
                with anyio.fail_after(5):  # deadlocks (and fails) if read-only calls were serialized
                    await both_started.wait()
            else:
                await anyio.sleep(0.02)
            running -= 1
            return name

        return define_harness_tool(name=name, description=name, input={"type": "object"}, read_only=read_only,
                                   execute=execute)

    adapter = ScriptedAdapter([[
        [CallHost("r1", {}, id="r1"), CallHost("r2", {}, id="r2")],
        [CallHost("w1", {}, id="w1"), CallHost("w2", {}, id="w2")],
        [Say("done")],
    ]])
    agent = adapter.agent(tools=[make("r1", True), make("r2", True), make("w1", False), make("w2", False)])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.finish_reason == "stop"
    assert peak == {"read": 2, "write": 1}
    assert sorted(adapter.tool_results) == ["r1", "r2", "w1", "w2"]
    assert all(len(outputs) == 1 for outputs in adapter.tool_results.values())


@pytest.mark.anyio
async def test_raising_tools_follow_on_error() -> None:
    def boom(input: Any, ctx: Any) -> str:
        raise ValueError("boom")

    tool = define_harness_tool(name="boom", description="Fails.", input={"type": "object"}, execute=boom)
    adapter = ScriptedAdapter([[[CallHost("boom", {}, id="b1")], [EchoResults()]], [[Say("still here")]]])
    agent = adapter.agent(tools=[tool])
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert error.error == "Error: ValueError: boom" and result.finish_reason == "stop"
    assert result.text == "boom: Error: ValueError: boom"

    failing = ScriptedAdapter([[[CallHost("boom", {}, id="b1")], [EchoResults()]], [[Say("still here")]]])
    strict = failing.agent(tools=[tool], on_error="fail")
    session = await strict.create_session()
    failed = await strict.generate(session=session, prompt="go")
    assert failed.finish_reason == "error"
    assert failed.error is not None and "tool 'boom' (call b1) failed: ValueError: boom" in failed.error
    assert [p.type for p in failed.parts][-3:] == ["error", "finish-step", "finish"]
    assert next(p for p in failed.parts if isinstance(p, ToolErrorPart)).tool_call_id == "b1"
    assert failing.aborted == [0] and session.state is TurnState.IDLE
    assert (await strict.generate(session=session, prompt="again")).text == "still here"


@pytest.mark.anyio
async def test_tool_timeout_turns_into_an_error_result() -> None:
    async def slow(input: Any, ctx: Any) -> str:
        await anyio.sleep(30)
        return "late"

    tool = define_harness_tool(name="slow", description="Slow.", input={"type": "object"}, execute=slow)
    adapter = one_host_call("slow", {})
    agent = adapter.agent(tools=[tool], tool_timeout=0.05)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (output,) = adapter.tool_results["c1"]
    assert output.is_error and "timed out after 0.05 s" in output.content
    assert result.finish_reason == "stop"


@pytest.mark.anyio
async def test_on_tool_execution_end_gets_every_execution_and_async_callbacks_work() -> None:
    ends: list[ToolExecutionEnd] = []

    async def record(event: ToolExecutionEnd) -> None:
        ends.append(event)

    def broken(event: ToolExecutionEnd) -> None:
        raise RuntimeError("callback bug")

    tool, _ = counted("count", result="7")
    agent = one_host_call("count", {"x": 1}).agent(tools=[tool], on_tool_execution_end=record)
    await agent.generate(session=await agent.create_session(), prompt="go")
    (end,) = ends
    assert end.tool.name == "count" and end.call.input == {"x": 1} and end.output == ToolOutput("7")
    assert end.error is None and end.duration >= 0
    survivor = one_host_call("count", {"x": 1}).agent(tools=[tool], on_tool_execution_end=broken)
    assert (await survivor.generate(session=await survivor.create_session(), prompt="go")).finish_reason == "stop"


@pytest.mark.anyio
async def test_on_tool_execution_end_gets_the_exception_a_tool_raised() -> None:
    async def async_boom(input: Any, ctx: Any) -> str:
        raise KeyError("missing")

    def bad_output(value: Any) -> str:
        raise ValueError("cannot show this")

    tools = [
        define_harness_tool(name="div", description="Divides.", input={"type": "object"}, execute=lambda i, c: 1 / 0),
        define_harness_tool(name="akey", description="Async.", input={"type": "object"}, execute=async_boom),
        define_harness_tool(name="shown", description="Output.", input={"type": "object"}, execute=lambda i, c: 1,
                            to_model_output=bad_output),
    ]
    ends: list[ToolExecutionEnd] = []
    adapter = ScriptedAdapter([[[CallHost("div", {}, id="d1"), CallHost("akey", {}, id="k1"),
                                 CallHost("shown", {}, id="s1")], [EchoResults()]]])
    agent = adapter.agent(tools=tools, on_tool_execution_end=ends.append)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    errors = {end.tool.name: end.error for end in ends}
    assert isinstance(errors["div"], ZeroDivisionError) and str(errors["div"]) == "division by zero"
    assert isinstance(errors["akey"], KeyError) and isinstance(errors["shown"], ValueError)
    by_call = {end.call.tool_call_id: end for end in ends}
    assert by_call["d1"].output == ToolOutput("Error: ZeroDivisionError: division by zero", is_error=True)
    # The model still gets the error result; the runtime never gets the exception object.
    assert result.text == ("div: Error: ZeroDivisionError: division by zero | akey: Error: KeyError: 'missing' | "
                           "shown: Error: ValueError: cannot show this")
    for outputs in adapter.tool_results.values():
        assert outputs[0].is_error and outputs[0].exception is None


# -- client-side tools ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_client_side_tools_pause_until_the_host_supplies_the_result() -> None:
    pick = define_harness_tool(name="pick", description="The user picks.",
                               input={"type": "object", "properties": {"q": {"type": "string"}}})
    adapter = ScriptedAdapter([[[Say("Asking."), CallHost("pick", {"q": "color"}, id="p1")], [EchoResults()]]])
    agent = adapter.agent(tools=[pick])
    session = await agent.create_session()
    paused = await agent.generate(session=session, prompt="go")
    assert paused.finish_reason == "awaiting-tool-result"
    assert [p.type for p in paused.parts][-2:] == ["finish-step", "finish"]
    (pending,) = paused.pending_tool_calls
    assert pending.tool_call_id == "p1" and pending.input == {"q": "color"}
    assert session.state is TurnState.AWAITING_TOOL_RESULT and session.has_unfinished_turn()
    assert list(session.pending_tool_calls) == ["p1"]
    assert "p1" not in adapter.tool_results
    done = await agent.continue_generate(session=session,
                                         tool_result_continuations=[{"tool_call_id": "p1", "output": {"color": "red"}}])
    # Submitted to the runtime, not shown again: the consumer supplied it (one step, as the AI SDK).
    assert [p for p in done.parts if isinstance(p, ToolResultPart)] == []
    assert [p.type for p in done.parts] == ["start", "start-step", "text-start", "text-delta", "text-end",
                                            "finish-step", "finish"]
    assert adapter.tool_results["p1"][0].content == '{"color": "red"}'
    assert done.text == 'pick: {"color": "red"}' and session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_client_side_error_results_reach_the_model_as_errors() -> None:
    pick = define_harness_tool(name="pick", description="The user picks.", input={"type": "object"})
    adapter = ScriptedAdapter([[[CallHost("pick", {}, id="p1")], [EchoResults()]]])
    agent = adapter.agent(tools=[pick])
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    done = await agent.continue_generate(session=session, tool_result_continuations=[
        {"toolCallId": "p1", "output": "the browser closed", "isError": True}])
    assert [p for p in done.parts if isinstance(p, ToolErrorPart)] == []  # the consumer has it already
    assert adapter.tool_results["p1"][0] == ToolOutput("the browser closed", is_error=True)
    assert "the browser closed" in done.text
