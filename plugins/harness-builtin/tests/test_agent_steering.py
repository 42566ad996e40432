"""Steering on the built-in harness (``session.steer_turn``), over a scripted model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    TurnState,
    TurnStateError,
    define_harness_tool,
    step_count_is,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio

STEER = "Also mention the colour blue."


def agent_for(server: Any, wire: str, **options: Any) -> HarnessAgent:
    if wire == "anthropic":
        harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url}
    else:
        harness_options = {"model": "openai:fake-model", "base_url": server.openai_base_url}
    harness_options.update(api_key="test-key", max_retries=0)
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


def carries(request: Any, text: str) -> bool:
    return text in json.dumps(request.body)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_steering_reaches_the_next_model_call(scripted_model_server: Any, workspace: Path, wire: str) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("lookup", {})]),
        "Red and blue.",
    ))
    holder: dict[str, Any] = {}

    async def lookup(input: Any, ctx: Any) -> str:
        await holder["session"].steer_turn(STEER)  # the turn is running: the model waits for this result
        return "red"

    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"}, execute=lookup)
    agent = agent_for(server, wire, tools=[tool])
    assert agent.capabilities.supports("steering")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        holder["session"] = session
        result = await agent.generate(session=session, prompt="Which colour?")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Red and blue."
    first, second = server.model_requests
    assert not carries(first, STEER)
    assert second.last_user_text == STEER  # after the tool result, as the newest user message
    assert second.tool_result_count == 1


async def test_steering_a_stopped_turn_is_delivered_before_its_next_step(scripted_model_server: Any,
                                                                        workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one"})]),
        "Done, in blue.",
    ))
    agent = agent_for(server, "anthropic", stop_when=step_count_is(1))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="run it")
        assert session.state is TurnState.STOPPED
        await session.steer_turn(STEER)
        assert len(server.model_requests) == 1  # delivered at the step boundary, not before
        rest = await agent.continue_generate(session=session, stop_when=[])
        assert rest.text == "Done, in blue."
        assert server.model_requests[1].last_user_text == STEER
        with pytest.raises(TurnStateError, match="no running turn"):
            await session.steer_turn("too late")  # the turn is over
    assert first.finish_reason == "tool-calls"


async def test_steering_refuses_bad_text_and_an_idle_session(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of("ok"))
    agent = agent_for(server, "anthropic")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        with pytest.raises(TurnStateError, match="no running turn"):
            await session.steer_turn("hello")
        with pytest.raises(ValueError, match="empty"):
            await session.steer_turn("  ")
        with pytest.raises(TypeError):
            await session.steer_turn(3)  # type: ignore[arg-type]
    assert not server.model_requests


async def test_a_steer_accepted_while_waiting_is_not_lost_by_suspend(scripted_model_server: Any,
                                                                     workspace: Path) -> None:
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("lookup", {})]), "Done."))
    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"},
                               execute=lambda input, ctx: "red")
    agent = agent_for(server, "anthropic", tools=[tool], tool_approval={"lookup": "user-approval"})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="Which colour?")
        assert session.state is TurnState.AWAITING_APPROVAL
        await session.steer_turn(STEER)  # accepted
        try:
            state = await session.suspend_turn()
        except TurnStateError:
            return  # refusing to suspend (nothing lost) is an acceptable fix
    [request] = first.approval_requests
    async with await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        await agent.continue_generate(session=resumed, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    assert any(carries(r, STEER) for r in server.model_requests)
