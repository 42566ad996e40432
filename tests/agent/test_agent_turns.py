"""Turns through the public API: stream parts, results, session states and lifecycle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    GenerateResult,
    HarnessConfigurationError,
    HarnessSession,
    LocalSandbox,
    StreamResult,
    TurnState,
    TurnStateError,
    define_harness_tool,
)
from harness_core.parts.models import Part, ToolCallPart, ToolResultPart
from harness_core.testing import (
    CallBuiltin,
    CallHost,
    ChangeFile,
    Compact,
    EchoResults,
    Say,
    ScriptedAdapter,
    Sleep,
    Think,
)


def types(parts: tuple[Part, ...] | list[Part]) -> list[str]:
    return [p.type for p in parts]


def add_tool() -> Any:
    return define_harness_tool(
        name="add", description="Add two integers.", read_only=True,
        input={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
               "required": ["a", "b"]},
        execute=lambda input, ctx: input["a"] + input["b"],
    )


@pytest.mark.anyio
async def test_a_turn_streams_parts_in_ai_sdk_order(workspace: Path) -> None:
    adapter = ScriptedAdapter([[
        [Think("plan"), Say("Working."), CallBuiltin("bash", {"command": "echo hi > out.txt"})],
        [Say("Done.")],
    ]], workspace=workspace)
    agent = adapter.agent()
    session = await agent.create_session()
    result = agent.stream(session=session, prompt="go")
    seen: list[Part] = []
    async for part in result.full_stream:
        seen.append(part)
    assert types(seen) == [
        "start", "start-step",
        "reasoning-start", "reasoning-delta", "reasoning-end",
        "text-start", "text-delta", "text-end",
        "tool-call", "tool-result", "finish-step",
        "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish",
    ]
    call = next(p for p in seen if isinstance(p, ToolCallPart))
    assert call.to_json() == {
        "type": "tool-call", "toolCallId": "call-0-0-2", "toolName": "bash",
        "input": {"command": "echo hi > out.txt"}, "providerExecuted": True,
        "providerMetadata": {"scripted": {"nativeToolName": "Bash"}},
    }
    assert (workspace / "out.txt").read_text() == "hi\n"
    assert session.state is TurnState.IDLE and not session.has_unfinished_turn()
    # the awaitable summaries reuse the buffered parts
    assert await result.text == "Done."
    assert await result.finish_reason == "stop"
    usage = await result.usage
    assert (usage.input_tokens, usage.output_tokens) == (20, 10)
    steps = await result.steps
    assert [s.finish_reason for s in steps] == ["tool-calls", "stop"]
    assert steps[0].text == "Working." and steps[0].reasoning_text == "plan"
    assert [p.type async for p in result.full_stream] == types(seen)  # replays


@pytest.mark.anyio
async def test_the_session_is_running_while_the_runtime_works() -> None:
    states: list[tuple[TurnState, bool]] = []
    holder: dict[str, HarnessSession] = {}

    def probe(input: dict[str, Any], ctx: Any) -> str:
        session = holder["session"]
        states.append((session.state, session.has_unfinished_turn()))
        return "probed"

    tool = define_harness_tool(name="probe", description="Probe.", input={"type": "object"}, execute=probe)
    agent = ScriptedAdapter([[[CallHost("probe", {})], [Say("done")]]]).agent(tools=[tool])
    holder["session"] = session = await agent.create_session()
    assert session.state is TurnState.IDLE and not session.has_unfinished_turn()
    await agent.generate(session=session, prompt="go")
    assert states == [(TurnState.RUNNING, True)]
    assert session.state is TurnState.IDLE and not session.has_unfinished_turn()


@pytest.mark.anyio
async def test_generate_collects_steps_calls_results_and_usage(workspace: Path) -> None:
    adapter = ScriptedAdapter([[
        [CallHost("add", {"a": 2, "b": 3}, id="c1"), CallBuiltin("read", {"file_path": "x.txt"}, id="c2")],
        [EchoResults("sum")],
    ]], workspace=workspace)
    (workspace / "x.txt").write_text("file text")
    agent = adapter.agent(tools=[add_tool()])
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="add")
    assert isinstance(result, GenerateResult)
    assert result.finish_reason == "stop" and result.error is None
    assert result.text == "sum add: 5 | read: file text"
    assert result.tool_calls == ()  # the last step made none (AI SDK semantics)
    assert [c.tool_name for c in result.all_tool_calls] == ["add", "read"]
    outputs = {r.tool_call_id: r.output for r in result.all_tool_results}
    assert outputs == {"c1": 5, "c2": "file text"}
    assert result.usage.total_tokens == 30 and result.total_usage == result.usage
    assert len(result.steps) == 2 and result.steps[0].tool_calls[0].tool_name == "add"
    assert adapter.tool_results["c1"][0].content == "5"


@pytest.mark.anyio
async def test_text_stream_and_async_with(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[Say("one")], [Say("two")]]], workspace=workspace)
    agent = adapter.agent()
    session = await agent.create_session()
    async with agent.stream(session=session, prompt="hi") as result:
        assert isinstance(result, StreamResult)
        assert [text async for text in result.text_stream] == ["one", "two"]
    assert result.done and session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_provider_metadata_is_preserved_and_native_names_added(workspace: Path) -> None:
    adapter = ScriptedAdapter([[
        [CallBuiltin("Write", {"file_path": "a.txt", "content": "A"}, id="w",
                     provider_metadata={"scripted": {"callIndex": 1}, "other": {"k": "v"}}),
         CallHost("add", {"a": 1, "b": 1}, id="h", provider_metadata={"other": {"trace": "t"}})],
        [Say("ok")],
    ]], workspace=workspace, host_tool_prefix="mcp__host__")
    agent = adapter.agent(tools=[add_tool()], permission_mode="allow-reads")
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="write")
    write_call = next(p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_call_id == "w")
    assert write_call.tool_name == "write"
    assert write_call.provider_metadata == {"scripted": {"callIndex": 1, "nativeToolName": "Write"},
                                            "other": {"k": "v"}}
    (request,) = result.approval_requests
    assert request.tool_call.provider_metadata == write_call.provider_metadata
    host_call = next(p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_call_id == "h")
    assert host_call.tool_name == "add" and not host_call.provider_executed
    assert host_call.provider_metadata == {"other": {"trace": "t"}, "scripted": {"nativeToolName": "mcp__host__add"}}
    glob_agent = ScriptedAdapter([[[CallBuiltin("glob", {"pattern": "*"}, id="g")], [Say("ok")]]],
                                 workspace=workspace).agent()
    globbed = await glob_agent.generate(session=await glob_agent.create_session(), prompt="glob")
    glob_call = next(p for p in globbed.parts if isinstance(p, ToolCallPart))
    assert glob_call.provider_metadata is None  # same native name: no nativeToolName


@pytest.mark.anyio
async def test_file_changes_and_compaction_are_dynamic_provider_executed_tools(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[ChangeFile("src/app.py", "modify"), Compact("summary"), Say("ok")]]],
                              workspace=workspace)
    agent = adapter.agent()
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    calls = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert [(c.tool_name, c.dynamic, c.provider_executed) for c in calls] == [
        ("fileChange", True, True), ("compaction", True, True)]
    assert calls[0].input == {"path": "src/app.py", "kind": "modify"}
    compacted = await session.compact().consume()
    assert [c.tool_name for c in compacted.all_tool_calls] == ["compaction"]
    assert compacted.finish_reason == "stop" and session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_host_tools_get_a_restricted_sandbox_view(workspace: Path) -> None:
    seen: dict[str, Any] = {}

    async def inspect(input: dict[str, Any], ctx: Any) -> str:
        seen["view"] = ctx.sandbox
        seen["ids"] = (ctx.tool_call_id, ctx.tool_name, ctx.session_id, ctx.harness_id)
        await ctx.sandbox.write_text_file("from-tool.txt", "written")
        return await ctx.sandbox.read_text_file("from-tool.txt")

    tool = define_harness_tool(name="inspect", description="Inspect.", input={"type": "object"}, execute=inspect)
    adapter = ScriptedAdapter([[[CallHost("inspect", {}, id="i1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool])
    sandbox = LocalSandbox(workspace)
    session = await agent.create_session(sandbox=sandbox, session_id="s-1")
    result = await agent.generate(session=session, prompt="go")
    assert result.text == "inspect: written"
    view = seen["view"]
    assert view is not sandbox and not hasattr(view, "stop") and not hasattr(view, "restricted")
    assert seen["ids"] == ("i1", "inspect", "s-1", "scripted")
    assert (workspace / "from-tool.txt").read_text() == "written"
    assert adapter.starts[0].sandbox is sandbox


@pytest.mark.anyio
async def test_instructions_and_host_tools_reach_the_runtime(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[Say("ok")]]], workspace=workspace)
    agent = adapter.agent(tools=[add_tool()], instructions="Be brief.")
    session = await agent.create_session()
    await agent.generate(session=session, prompt="hello")
    (start,) = adapter.starts
    (prompt,) = adapter.prompts
    assert start.instructions == prompt.instructions == "Be brief."
    assert prompt.prompt == "hello"
    assert [spec.name for spec in prompt.host_tools] == ["add"] == [spec.name for spec in start.host_tools]
    assert prompt.host_tools[0].input_schema["required"] == ["a", "b"] and prompt.host_tools[0].read_only


# -- session lifecycle --------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_new_prompt_while_a_turn_is_unfinished_is_an_error(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallHost("pick", {}, id="p1")], [EchoResults()]], [[Say("next")]]])
    pick = define_harness_tool(name="pick", description="Client-side.", input={"type": "object"})
    agent = adapter.agent(tools=[pick])
    session = await agent.create_session()
    paused = await agent.generate(session=session, prompt="pick")
    assert paused.finish_reason == "awaiting-tool-result"
    with pytest.raises(TurnStateError, match="has an unfinished turn \\(awaiting-tool-result\\)"):
        agent.stream(session=session, prompt="another")
    with pytest.raises(TurnStateError, match="unfinished turn"):
        await agent.generate(session=session, messages=[{"role": "user", "content": "another"}])
    await session.abort_turn()
    assert session.state is TurnState.IDLE and adapter.aborted == [0]
    assert (await agent.generate(session=session, prompt="next")).text == "next"


@pytest.mark.anyio
async def test_continuing_an_idle_session_is_an_error(workspace: Path) -> None:
    agent = ScriptedAdapter([[[Say("hi")]]]).agent()
    session = await agent.create_session()
    with pytest.raises(TurnStateError, match="has no paused turn to continue \\(state: idle\\)"):
        agent.continue_stream(session=session, tool_result_continuations=[{"tool_call_id": "x", "output": 1}])
    with pytest.raises(TurnStateError, match="no paused turn"):
        await agent.generate(session=session, messages=[
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "x", "output": 1}]}])


@pytest.mark.anyio
async def test_a_second_stream_started_before_consuming_the_first_fails_at_consumption() -> None:
    agent = ScriptedAdapter([[[Say("one")]], [[Say("two")]], [[Say("waiting"), Sleep()]]]).agent()
    session = await agent.create_session()
    first = agent.stream(session=session, prompt="1")
    second = agent.stream(session=session, prompt="2")
    assert (await first.consume()).text == "one"
    assert (await second.consume()).text == "two"  # the first had finished: fine
    third = agent.stream(session=session, prompt="3")
    fourth = agent.stream(session=session, prompt="4")
    async for part in third.full_stream:
        if part.type == "text-delta":
            with pytest.raises(TurnStateError, match="unfinished turn \\(running\\)"):
                await fourth.consume()
            third.abort()
    assert await third.finish_reason == "aborted"
    assert session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_destroy_is_idempotent_and_a_destroyed_session_refuses_turns() -> None:
    adapter = ScriptedAdapter([[[Say("hi")]]])
    agent = adapter.agent()
    session = await agent.create_session()
    await session.destroy()
    await session.destroy()
    assert session.destroyed and session.closed
    with pytest.raises(TurnStateError, match="was destroyed and refuses further turns"):
        agent.stream(session=session, prompt="hi")
    with pytest.raises(TurnStateError):
        await session.suspend_turn()
    assert adapter.sessions[0].destroyed


@pytest.mark.anyio
async def test_stop_and_resume_from_continue_the_runtime_conversation() -> None:
    adapter = ScriptedAdapter([[[Say("first")]], [[Say("second")]]])
    agent = adapter.agent()
    session = await agent.create_session(session_id="conv-1")
    assert (await agent.generate(session=session, prompt="1")).text == "first"
    state = await session.stop()
    assert state == {"version": 1, "kind": "stopped-session", "harness_id": "scripted", "session_id": "conv-1",
                     "adapter": {"next_turn": 1}}
    with pytest.raises(TurnStateError, match="was stopped"):
        agent.stream(session=session, prompt="again")
    resumed = await agent.create_session(resume_from=json.loads(json.dumps(state)))
    assert resumed.session_id == "conv-1"
    assert adapter.starts[-1].resume_from == {"next_turn": 1}
    assert (await agent.generate(session=resumed, prompt="2")).text == "second"
    with pytest.raises(HarnessConfigurationError, match=r"this is 'stopped-session' state \(from session.stop\(\)\); pass it as resume_from"):
        await agent.create_session(continue_from=state)


@pytest.mark.anyio
async def test_sessions_belong_to_their_agent() -> None:
    adapter = ScriptedAdapter([[[Say("hi")]]])
    first, second = adapter.agent(), adapter.agent()
    session = await first.create_session()
    with pytest.raises(HarnessConfigurationError, match="belongs to another agent"):
        second.stream(session=session, prompt="hi")
    with pytest.raises(TypeError, match="session must be a HarnessSession"):
        first.stream(session="s", prompt="hi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exactly one of prompt= or messages="):
        first.stream(session=session)
    with pytest.raises(HarnessConfigurationError, match=r"sandbox must implement harness_core\.Sandbox"):
        await first.create_session(sandbox=object())  # type: ignore[arg-type]
    assert isinstance(session, HarnessSession) and "scripted" in repr(session)


def test_run_sync_for_scripts(workspace: Path) -> None:
    adapter = ScriptedAdapter([[
        [CallBuiltin("bash", {"command": "echo sync > s.txt"})],
        [Say("done")],
    ]], workspace=workspace)
    agent = adapter.agent(permission_mode="allow-edits")
    asked: list[str] = []

    def approve(request: Any) -> bool:
        asked.append(request.tool_call.tool_name)
        return True

    result = agent.run_sync("make s.txt", approve=approve)
    assert asked == ["bash"]
    assert result.finish_reason == "stop" and result.text == "done"
    assert (workspace / "s.txt").read_text() == "sync\n"
    assert [p.type for p in result.parts].count("finish") == 2  # both slices
    assert adapter.sessions[0].destroyed


@pytest.mark.anyio
async def test_run_stops_at_an_approval_without_approve(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "echo x > x.txt"})], [Say("done")]]],
                              workspace=workspace)
    agent = adapter.agent(permission_mode="allow-edits")
    result = await agent.run("go")
    assert result.finish_reason == "awaiting-approval"
    assert not (workspace / "x.txt").exists()

    async def deny(request: Any) -> tuple[bool, str]:
        return False, "not in scripts"

    denied = await ScriptedAdapter([[[CallBuiltin("bash", {"command": "echo x > x.txt"})], [EchoResults()]]],
                                   workspace=workspace).agent(permission_mode="allow-edits").run("go", approve=deny)
    assert denied.finish_reason == "stop" and "not in scripts" in denied.text
    assert not (workspace / "x.txt").exists()


@pytest.mark.anyio
async def test_tool_results_match_the_runtime_view(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallHost("add", {"a": 40, "b": 2}, id="c")], [EchoResults()]]])
    agent = adapter.agent(tools=[add_tool()])
    result = await agent.generate(session=await agent.create_session(), prompt="add")
    (final,) = [p for p in result.parts if isinstance(p, ToolResultPart)]
    assert final.output == 42 and final.input == {"a": 40, "b": 2}
    assert [o.content for o in adapter.tool_results["c"]] == ["42"]


@pytest.mark.anyio
async def test_compaction_needs_runtime_support() -> None:
    from harness_core import HarnessCapabilityUnsupportedError

    agent = ScriptedAdapter([[[Say("hi")]]], supports_compaction=False).agent()
    session = await agent.create_session()
    with pytest.raises(HarnessCapabilityUnsupportedError, match="harness 'scripted' does not support compaction"):
        await session.compact().consume()
    assert session.state is TurnState.IDLE
    assert (await agent.generate(session=session, prompt="hi")).text == "hi"
