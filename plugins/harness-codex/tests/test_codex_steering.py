"""Steering on the real Codex app-server (scripted Responses model): ``turn/steer``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, TurnStateError, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

STEER = "Also mention the colour blue."


async def test_turn_steer_reaches_the_next_model_call(make_agent: Callable[..., HarnessAgent], tmp_path: Path) -> None:
    holder: dict[str, Any] = {}

    async def lookup(input: Any, ctx: Any) -> str:
        await holder["session"].steer_turn(STEER)  # Codex waits for this dynamic tool's result
        return "red"

    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"}, execute=lookup)
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("lookup", {})]), "Red and blue.")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[tool])
        assert agent.capabilities.supports("steering")
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            holder["session"] = session
            result = await agent.generate(session=session, prompt="Which colour?")
            with pytest.raises(TurnStateError, match="no running turn"):
                await session.steer_turn("too late")
        calls = [r for r in server.requests if r.is_model_call]
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Red and blue."
    assert len(calls) == 2
    assert STEER not in json.dumps(calls[0].body)
    assert STEER in json.dumps(calls[1].body) and "red" in json.dumps(calls[1].body)
