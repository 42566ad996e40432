"""Steering on real pi (scripted model): pi's RPC ``steer`` command."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_core import TurnStateError, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]

STEER = "Also mention the colour blue."


async def test_steer_reaches_the_next_model_call(pi_agent: PiAgentFactory) -> None:
    holder: dict[str, Any] = {}

    async def lookup(input: Any, ctx: Any) -> str:
        await holder["session"].steer_turn(STEER)  # pi waits for this host tool's result
        return "red"

    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"}, execute=lookup)
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("lookup", {}, id="l1")]), "Red and blue.")
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, tools=[tool])
        assert agent.capabilities.supports("steering")
        async with await agent.create_session() as session:
            holder["session"] = session
            result = await agent.generate(session=session, prompt="Which colour?")
            with pytest.raises(TurnStateError, match="no running turn"):
                await session.steer_turn("too late")
        calls = [r for r in server.model_requests if not r.is_side_request]
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.all_text.endswith("Red and blue.")
    assert len(calls) == 2
    assert STEER not in json.dumps(calls[0].body)
    assert calls[1].last_user_text == STEER and calls[1].tool_result_count == 1
