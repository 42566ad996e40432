"""Steering on the real Claude Code CLI (scripted model): ``session.steer_turn`` writes a user
message to the CLI's streaming input while the turn runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox, TurnStateError, define_harness_tool
from harness_core.testing import ModelTurn, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]

STEER = "Also mention the colour blue."


def _agent(settings: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(**settings), include_plugin_tools=False, **kwargs)


async def test_steering_reaches_the_model_in_the_same_turn(scripted_model_server: Any, adapter_settings: Any,
                                                           workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__lookup", {})]),
        "Red and blue.",
        "Extra.",
    ])
    holder: dict[str, Any] = {}

    async def lookup(input: Any, ctx: Any) -> str:
        await holder["session"].steer_turn(STEER)  # Claude Code waits for this result
        return "red"

    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"}, execute=lookup)
    agent = _agent(adapter_settings(server), tools=[tool])
    assert agent.capabilities.supports("steering")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        holder["session"] = session
        result = await agent.generate(session=session, prompt="Which colour?")
        again = await agent.generate(session=session, prompt="And now?")
        with pytest.raises(TurnStateError, match="no running turn"):
            await session.steer_turn("too late")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Red and blue."
    assert again.finish_reason == "stop" and again.text == "Extra."  # the next turn is its own
    first, second, third = server.model_requests
    assert STEER not in json.dumps(first.body)
    assert second.tool_result_count == 1 and STEER in (second.last_user_text or "")  # in the same turn
    assert third.last_user_text == "And now?"


async def test_a_steer_during_the_final_answer_does_not_shift_later_turns(scripted_model_server: Any,
                                                                          adapter_settings: Any,
                                                                          workspace: Path) -> None:
    server = scripted_model_server(["First answer, long enough to stream in several chunks of text.",
                                    "Answer to the steer.", "Answer to two."])
    agent = _agent(adapter_settings(server))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = agent.stream(session=session, prompt="one")
        steered = False
        async for part in result.full_stream:
            if part.type == "text-delta" and not steered:
                steered = True
                await session.steer_turn(STEER)  # accepted: the turn is still running
        first = await result.consume()
        second = await agent.generate(session=session, prompt="two")
    assert steered
    # the CLI answers the late steer in a CLI turn of its own: the harness turn spans it
    check_stream_shape(first.parts)
    assert first.finish_reason == "stop" and first.text == "Answer to the steer."
    assert [s.text for s in first.steps] == ["First answer, long enough to stream in several chunks of text.",
                                             "Answer to the steer."]
    assert first.usage.output_tokens is not None and first.usage.output_tokens > second.usage.output_tokens > 0
    assert not session.contract_violations
    # the answer to "two" must be the model's reply to the request carrying "two"
    texts = [r.last_user_text for r in server.model_requests]
    carrying_two = texts.index("two") if "two" in texts else -1
    assert carrying_two >= 0, texts
    assert second.text == ["First answer, long enough to stream in several chunks of text.",
                           "Answer to the steer.", "Answer to two."][carrying_two]


@pytest.mark.parametrize("suspend", [False, True])
async def test_a_steer_while_waiting_for_an_approval_reaches_the_continued_turn(
        scripted_model_server: Any, adapter_settings: Any, workspace: Path, suspend: bool) -> None:
    # the core holds it while the turn waits (and in suspended state); the continuation delivers it
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__lookup", {})]), "Done."])
    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"},
                               execute=lambda input, ctx: "red")
    agent = _agent(adapter_settings(server), tools=[tool], tool_approval={"lookup": "user-approval"})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="Which colour?")
        [request] = first.approval_requests
        await session.steer_turn(STEER)
        answer = [{"approval_id": request.approval_id, "approved": True}]
        if not suspend:
            rest = await agent.continue_generate(session=session, approval_responses=answer)
        else:
            state = json.loads(json.dumps(await session.suspend_turn()))
            assert state["steering"] == [STEER]
    if suspend:
        async with await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
            rest = await agent.continue_generate(session=resumed, approval_responses=answer)
    check_stream_shape(rest.parts)
    assert rest.finish_reason == "stop" and rest.text == "Done.", rest.parts
    assert not [p for p in rest.parts if p.type == "error"]
    assert STEER not in json.dumps(server.model_requests[0].body)
    assert STEER in json.dumps(server.model_requests[-1].body)
    # in this session the steer joins the request after the tool result; a turn continued in
    # a new CLI process is resumed by Claude Code first, and the steer may get a CLI turn of
    # its own, which the harness turn spans
    assert len(server.model_requests) in ((2, 3) if suspend else (2,)), [r.last_user_text for r in server.model_requests]
