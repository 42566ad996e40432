"""Pausing and continuing: keyed decisions, messages, suspension, abort and runtime failures."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    ToolOutput,
    TurnState,
    TurnStateError,
    define_harness_tool,
)
from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    Part,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import (
    CallBuiltin,
    CallHost,
    Crash,
    EchoResults,
    Fail,
    Say,
    ScriptedAdapter,
    Sleep,
)


def recorder() -> tuple[Any, list[str]]:
    ran: list[str] = []

    def execute(input: Any, ctx: Any) -> str:
        ran.append(ctx.tool_call_id)
        return f"recorded {input['text']}"

    tool = define_harness_tool(name="record", description="Record.",
                               input={"type": "object", "properties": {"text": {"type": "string"}},
                                      "required": ["text"]},
                               execute=execute)
    return tool, ran


def finals(parts: list[Part]) -> Counter[str]:
    """How many final results each call got."""
    return Counter(p.tool_call_id for p in parts
                   if isinstance(p, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart)
                   and not (isinstance(p, ToolResultPart) and p.preliminary))


def two_approvals() -> ScriptedAdapter:
    return ScriptedAdapter([[
        [CallHost("record", {"text": "one"}, id="c1"), CallHost("record", {"text": "two"}, id="c2")],
        [EchoResults("saw")],
    ], [[Say("next turn")]]])


@pytest.mark.anyio
async def test_parallel_approvals_are_keyed_by_call_id() -> None:
    tool, ran = recorder()
    adapter = two_approvals()
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    first = await agent.generate(session=session, prompt="go")
    assert [r.approval_id for r in first.approval_requests] == ["approval-c1", "approval-c2"]
    assert sorted(session.pending_approvals) == ["approval-c1", "approval-c2"]
    second = await agent.continue_generate(session=session,
                                           approval_responses=[{"approval_id": "approval-c2", "approved": True}])
    assert second.finish_reason == "awaiting-approval"  # c1 still waits
    assert ran == ["c2"] and list(session.pending_approvals) == ["approval-c1"]
    assert [p.type for p in second.parts] == ["start", "start-step", "tool-approval-response", "tool-result",
                                              "finish-step", "finish"]
    third = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-c1", "approved": False, "reason": "not that one"}])
    assert third.finish_reason == "stop" and session.state is TurnState.IDLE
    assert ran == ["c2"]
    assert third.text == "saw record: Execution denied: not that one | record: recorded two"
    everything = [*first.parts, *second.parts, *third.parts]
    assert finals(everything) == {"c1": 1, "c2": 1}
    assert {call_id: len(outputs) for call_id, outputs in adapter.tool_results.items()} == {"c1": 1, "c2": 1}


@pytest.mark.anyio
async def test_continuation_arguments_are_checked_against_what_is_pending() -> None:
    tool, _ = recorder()
    pick = define_harness_tool(name="pick", description="Client-side.", input={"type": "object"})
    adapter = ScriptedAdapter([[
        [CallHost("record", {"text": "one"}, id="c1"), CallHost("pick", {}, id="p1")],
        [EchoResults()],
    ]])
    agent = adapter.agent(tools=[tool, pick], tool_approval={"record": "user-approval", "pick": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    with pytest.raises(TurnStateError, match=r"approval id 'nope' is not pending .*approval-c1, approval-p1"):
        agent.continue_stream(session=session, approval_responses=[{"approval_id": "nope", "approved": True}])
    with pytest.raises(TurnStateError, match="tool call 'p1' still waits for its approval"):
        agent.continue_stream(session=session, tool_result_continuations=[{"tool_call_id": "p1", "output": 1}])
    with pytest.raises(ValueError, match="answered twice"):
        agent.continue_stream(session=session, approval_responses=[
            {"approval_id": "approval-c1", "approved": True}, {"approval_id": "approval-c1", "approved": False}])
    with pytest.raises(ValueError, match="nothing to continue with"):
        agent.continue_stream(session=session)
    with pytest.raises(ValueError, match=r"approval_responses\[0\]: 'approved' must be true or false"):
        agent.continue_stream(session=session, approval_responses=[{"approval_id": "approval-c1", "approved": "yes"}])
    # approving the client-side tool makes it wait for its result
    after = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-p1", "approved": True}, {"approval_id": "approval-c1", "approved": True}])
    assert after.finish_reason == "awaiting-tool-result" and session.state is TurnState.AWAITING_TOOL_RESULT
    assert list(session.pending_tool_calls) == ["p1"]
    with pytest.raises(TurnStateError, match="tool call 'zz' is not waiting for a result"):
        agent.continue_stream(session=session, tool_result_continuations=[{"tool_call_id": "zz", "output": 1}])
    done = await agent.continue_generate(session=session,
                                         tool_result_continuations=[{"tool_call_id": "p1", "output": "blue"}])
    assert done.text == "record: recorded one | pick: blue"


@pytest.mark.anyio
async def test_model_messages_continue_a_paused_turn_like_the_ai_sdk() -> None:
    tool, ran = recorder()
    pick = define_harness_tool(name="pick", description="Client-side.", input={"type": "object"})
    adapter = ScriptedAdapter([[
        [CallHost("record", {"text": "x"}, id="c1")],
        [CallHost("pick", {}, id="p1")],
        [EchoResults("saw")],
    ]])
    agent = adapter.agent(tools=[tool, pick], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    first = await agent.generate(session=session, messages=[
        {"role": "system", "content": "ignored: the runtime keeps its own history"},
        {"role": "user", "content": [{"type": "text", "text": "record"}, {"type": "text", "text": "it"}]},
    ])
    assert adapter.prompts[0].prompt == "record\nit"
    (request,) = first.approval_requests
    history = [{"role": "user", "content": "record it"},
               {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "record",
                                                  "input": {"text": "x"}}]}]
    second = await agent.generate(session=session, messages=[*history, {"role": "tool", "content": [
        {"type": "tool-approval-response", "approvalId": request.approval_id, "approved": True}]}])
    assert ran == ["c1"] and second.finish_reason == "awaiting-tool-result"
    third = agent.stream(session=session, messages=[*history, {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "p1", "toolName": "pick",
         "output": {"type": "json", "value": {"picked": "green"}}}]}])
    done = await third.consume()
    assert done.text == 'saw pick: {"picked": "green"}'
    # The consumer supplied the result: it is submitted, not shown again (one step, as the AI SDK).
    assert [p for p in done.parts if isinstance(p, ToolResultPart)] == []
    assert [p.type for p in done.parts].count("start-step") == 1


@pytest.mark.anyio
async def test_ai_sdk_error_and_denied_outputs_in_tool_messages() -> None:
    pick = define_harness_tool(name="pick", description="Client-side.", input={"type": "object"})
    adapter = ScriptedAdapter([[[CallHost("pick", {}, id="p1")], [EchoResults()]],
                               [[CallHost("pick", {}, id="p2")], [EchoResults()]]])
    agent = adapter.agent(tools=[pick])
    session = await agent.create_session()
    await agent.generate(session=session, prompt="one")
    await agent.generate(session=session, messages=[{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "p1", "output": {"type": "error-text", "value": "cancelled"}}]}])
    assert adapter.tool_results["p1"] == [ToolOutput("cancelled", is_error=True)]
    await agent.generate(session=session, prompt="two")
    await agent.generate(session=session, messages=[{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "p2", "output": {"type": "execution-denied", "reason": "user said no"}}]}])
    assert adapter.tool_results["p2"] == [ToolOutput("Execution denied: user said no", is_error=True)]
    with pytest.raises(ValueError, match=r"messages\[0\]: the trailing message must be a 'user' message"):
        agent.stream(session=session, messages=[{"role": "assistant", "content": "hi"}])
    with pytest.raises(ValueError, match=r"only text parts can be sent to a harness, got 'image'"):
        agent.stream(session=session, messages=[{"role": "user", "content": [{"type": "image", "image": "x"}]}])


# -- suspension ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_suspended_state_is_json_versioned_and_keyed_by_id() -> None:
    tool, _ = recorder()
    pick = define_harness_tool(name="pick", description="Client-side.", input={"type": "object"})
    adapter = ScriptedAdapter([[
        [CallHost("record", {"text": "a"}, id="c1"), CallHost("pick", {"q": 1}, id="p1"),
         CallBuiltin("bash", {"command": "true"}, id="b1")],
        [EchoResults()],
    ]], host_tool_prefix="mcp__h__")
    agent = adapter.agent(tools=[tool, pick], tool_approval={"record": "user-approval"},
                          permission_mode="allow-edits")
    session = await agent.create_session(session_id="sess-1")
    with pytest.raises(TurnStateError, match="can only suspend a paused turn"):
        await session.suspend_turn()
    await agent.generate(session=session, prompt="go")
    state = await session.suspend_turn()
    assert json.loads(json.dumps(state)) == state
    assert {k: state[k] for k in ("version", "kind", "harness_id", "session_id", "state")} == {
        "version": 1, "kind": "suspended-turn", "harness_id": "scripted", "session_id": "sess-1",
        "state": "awaiting-approval"}
    assert state["pending_approvals"] == {
        "approval-c1": {"approval_id": "approval-c1", "kind": "host", "tool_call_id": "c1", "tool_name": "record",
                        "input": {"text": "a"}, "native_tool_name": "mcp__h__record", "provider_metadata": {}},
        "approval-b1": {"approval_id": "approval-b1", "kind": "builtin", "tool_call_id": "b1", "tool_name": "bash",
                        "input": {"command": "true"}, "native_tool_name": "Bash", "provider_metadata": {}},
    }
    assert state["pending_tool_results"] == {
        "p1": {"tool_call_id": "p1", "tool_name": "pick", "input": {"q": 1}, "native_tool_name": "mcp__h__pick",
               "provider_metadata": {}}}
    assert session.state is TurnState.SUSPENDED and session.has_unfinished_turn()
    with pytest.raises(TurnStateError, match="suspended its unfinished turn"):
        agent.stream(session=session, prompt="again")
    with pytest.raises(TurnStateError, match="suspended its turn"):
        agent.continue_stream(session=session, approval_responses=[{"approval_id": "approval-c1", "approved": True}])


@pytest.mark.anyio
async def test_a_call_denied_before_suspension_never_executes_after_it() -> None:
    tool, ran = recorder()
    adapter = two_approvals()
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    denied = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-c1", "approved": False, "reason": "no"}])
    assert [p.type for p in denied.parts if p.type == "tool-output-denied"] == ["tool-output-denied"]
    state = json.loads(json.dumps(await session.suspend_turn()))
    assert state["decided"] == {"c1": {"status": "denied", "reason": "no", "approval_id": "approval-c1"}}
    assert list(state["pending_approvals"]) == ["approval-c2"]
    continued = await agent.create_session(continue_from=state)
    assert continued.state is TurnState.AWAITING_APPROVAL and continued.session_id == session.session_id
    with pytest.raises(TurnStateError, match="approval id 'approval-c1' is not pending"):
        agent.continue_stream(session=continued, approval_responses=[{"approval_id": "approval-c1", "approved": True}])
    done = await agent.continue_generate(session=continued, approval_responses=[
        {"approval_id": "approval-c2", "approved": True}])
    assert done.finish_reason == "stop" and ran == ["c2"]
    assert done.text == "saw record: Execution denied: no | record: recorded two"
    assert {k: len(v) for k, v in adapter.tool_results.items()} == {"c1": 1, "c2": 1}
    assert adapter.starts[-1].continue_from is not None


@pytest.mark.anyio
async def test_continue_from_is_validated() -> None:
    tool, _ = recorder()
    adapter = two_approvals()
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session(session_id="s1")
    await agent.generate(session=session, prompt="go")
    state = await session.suspend_turn()
    with pytest.raises(HarnessConfigurationError, match="unsupported state version 2; this harness-core reads version 1"):
        await agent.create_session(continue_from={**state, "version": 2})
    other = ScriptedAdapter([], harness_id="other").agent(tools=[tool])
    with pytest.raises(HarnessConfigurationError, match="suspended on harness 'scripted', but this agent runs harness 'other'"):
        await other.create_session(continue_from=state)
    with pytest.raises(HarnessConfigurationError, match=r"malformed suspended state: pending_approvals\.approval-c1\.kind"):
        broken = json.loads(json.dumps(state))
        broken["pending_approvals"]["approval-c1"]["kind"] = "robot"
        await agent.create_session(continue_from=broken)
    with pytest.raises(HarnessConfigurationError, match="session_id 'x' contradicts the state"):
        await agent.create_session(continue_from=state, session_id="x")
    with pytest.raises(HarnessConfigurationError, match="either continue_from or resume_from"):
        await agent.create_session(continue_from=state, resume_from=state)
    with pytest.raises(HarnessConfigurationError, match="not valid JSON"):
        await agent.create_session(continue_from="{nope")
    restored = await agent.create_session(continue_from=json.dumps(state))  # JSON text works too
    assert restored.state is TurnState.AWAITING_APPROVAL


@pytest.mark.anyio
async def test_runtimes_that_cannot_suspend_say_so() -> None:
    tool, _ = recorder()
    adapter = ScriptedAdapter(two_approvals().script, supports_suspend=False)
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    with pytest.raises(HarnessCapabilityUnsupportedError, match="harness 'scripted' does not support suspending a turn"):
        await session.suspend_turn()
    assert session.state is TurnState.AWAITING_APPROVAL  # nothing lost


@pytest.mark.anyio
async def test_destroying_a_paused_session_aborts_its_turn() -> None:
    tool, ran = recorder()
    adapter = two_approvals()
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    await session.destroy()
    assert adapter.aborted == [0] and ran == [] and session.destroyed


# -- abort ----------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers; read its state
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.anyio
async def test_abort_ends_the_stream_kills_the_command_and_leaves_a_usable_session(workspace: Path) -> None:
    adapter = ScriptedAdapter([
        [[CallBuiltin("bash", {"command": "sleep 60"}, id="slow")], [Say("never")]],
        [[Say("recovered")]],
    ], workspace=workspace)
    agent = adapter.agent()
    session = await agent.create_session()
    result = agent.stream(session=session, prompt="wait")
    parts: list[Part] = []
    pids: set[int] = set()
    async for part in result.full_stream:
        parts.append(part)
        if isinstance(part, ToolCallPart):
            with anyio.fail_after(10):
                while not adapter.live_processes:  # noqa: ASYNC110 - polls the runtime's process table
                    await anyio.sleep(0.01)
            pids = set(adapter.live_processes)
            result.abort("user pressed stop")
    assert isinstance(parts[-1], AbortPart) and parts[-1].reason == "user pressed stop"
    assert adapter.aborted == [0] and adapter.live_processes == set()
    assert pids and not any(_alive(pid) for pid in pids)
    assert session.state is TurnState.IDLE and not session.has_unfinished_turn()
    assert (await result.consume()).finish_reason == "aborted"
    assert (await agent.generate(session=session, prompt="again")).text == "recovered"


@pytest.mark.anyio
async def test_abort_signal_and_cancel_scopes_abort_too() -> None:
    adapter = ScriptedAdapter([[[Say("working"), Sleep()]], [[Say("waiting"), Sleep()]], [[Say("fine")]]])
    agent = adapter.agent()
    session = await agent.create_session()
    signal = anyio.Event()
    result = agent.stream(session=session, prompt="one", abort_signal=signal)
    async for part in result.full_stream:
        if part.type == "text-delta":
            signal.set()
    assert result.parts[-1].type == "abort" and adapter.aborted == [0]

    with anyio.move_on_after(0.2) as scope:
        await agent.generate(session=session, prompt="two")
    assert scope.cancelled_caught
    assert adapter.aborted == [0, 1] and session.state is TurnState.IDLE
    assert (await agent.generate(session=session, prompt="three")).text == "fine"


@pytest.mark.anyio
async def test_leaving_async_with_early_aborts_the_slice() -> None:
    adapter = ScriptedAdapter([[[Say("working"), Sleep()]], [[Say("fine")]]])
    agent = adapter.agent()
    session = await agent.create_session()
    async with agent.stream(session=session, prompt="one") as result:
        async for part in result.full_stream:
            if part.type == "text-delta":
                break
    assert result.done and result.parts[-1].type == "abort"
    assert session.state is TurnState.IDLE and adapter.aborted == [0]
    assert (await agent.generate(session=session, prompt="two")).text == "fine"


# -- runtime failures -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_runtime_errors_give_an_error_part_and_the_session_stays_usable() -> None:
    adapter = ScriptedAdapter([
        [[Say("trying"), Fail("rate limited, retry in 20 s", error_type="rate-limit")]],
        [[Crash("segfault in runtime")]],
        [[Say("fine")]],
    ])
    agent = adapter.agent()
    session = await agent.create_session()
    failed = await agent.generate(session=session, prompt="one")
    (error,) = [p for p in failed.parts if isinstance(p, ErrorPart)]
    assert (error.error, error.error_type) == ("rate limited, retry in 20 s", "rate-limit")
    assert failed.finish_reason == "error" and [p.type for p in failed.parts][-2:] == ["finish-step", "finish"]
    assert session.state is TurnState.IDLE
    crashed = await agent.generate(session=session, prompt="two")
    (error,) = [p for p in crashed.parts if isinstance(p, ErrorPart)]
    assert error.error_type == "runtime-crashed" and "RuntimeError: segfault in runtime" in error.error
    assert crashed.finish_reason == "error" and session.state is TurnState.IDLE
    assert (await agent.generate(session=session, prompt="three")).text == "fine"


@pytest.mark.anyio
async def test_a_paused_call_left_unanswered_when_the_turn_ends_gets_an_error_result() -> None:
    tool, ran = recorder()
    adapter = ScriptedAdapter([[[CallHost("record", {"text": "x"}, id="c1"), Fail("the runtime gave up")]]])
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "error" and ran == []
    assert finals(list(result.parts)) == {"c1": 1}
    assert session.state is TurnState.IDLE and dict(session.pending_approvals) == {}


@pytest.mark.anyio
async def test_an_adapter_that_fails_to_start_a_turn_gives_an_error_part() -> None:
    adapter = ScriptedAdapter([[[Say("x")]]])
    agent = adapter.agent()
    session = await agent.create_session()
    await adapter.sessions[0].destroy()  # the runtime is gone: prompt() raises
    result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "error"
    assert result.error is not None and "could not start the turn: TurnStateError" in result.error
    assert session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_approval_responses_are_echoed() -> None:
    tool, _ = recorder()
    adapter = two_approvals()
    agent = adapter.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-c1", "approved": True, "reason": "fine"},
        {"approval_id": "approval-c2", "approved": True}])
    responses = [p for p in done.parts if isinstance(p, ToolApprovalResponsePart)]
    assert [(r.approval_id, r.approved, r.reason) for r in responses] == [
        ("approval-c1", True, "fine"), ("approval-c2", True, None)]


@pytest.mark.anyio
async def test_continuing_on_a_runtime_that_cannot_is_a_capability_error() -> None:
    tool, _ = recorder()
    suspending = two_approvals()
    agent = suspending.agent(tools=[tool], tool_approval={"record": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    state = await session.suspend_turn()
    other = ScriptedAdapter(suspending.script, supports_suspend=False).agent(tools=[tool])
    with pytest.raises(HarnessCapabilityUnsupportedError, match="does not support continuing a suspended turn"):
        await other.create_session(continue_from=state)


@pytest.mark.anyio
async def test_an_adapter_bug_becomes_an_error_part_not_an_exception(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "true"})], [Say("x")]], [[Say("fine")]]],
                              workspace=workspace)
    agent = adapter.agent(permission_mode="allow-reads", plugins=[])
    session = await agent.create_session()
    scripted_session = adapter.sessions[0]
    prompt = scripted_session.prompt

    async def buggy_prompt(request: Any) -> Any:
        turn = await prompt(request)

        async def refuse(approval_id: str, approved: bool, reason: str | None = None) -> None:
            raise KeyError(approval_id)

        turn.submit_approval = refuse  # type: ignore[method-assign]
        return turn

    scripted_session.prompt = buggy_prompt  # type: ignore[method-assign]
    paused = await agent.generate(session=session, prompt="go")
    (request,) = paused.approval_requests
    failed = await agent.continue_generate(session=session,
                                           approval_responses=[{"approval_id": request.approval_id, "approved": True}])
    assert failed.finish_reason == "error"
    assert failed.error == "harness 'scripted': the turn failed: KeyError: 'approval-call-0-0-0'"
    assert session.state is TurnState.IDLE and adapter.aborted == [0]
    assert (await agent.generate(session=session, prompt="again")).text == "fine"
