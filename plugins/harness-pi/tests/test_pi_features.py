"""Stop conditions, structured output (by instruction) and capability refusals on real pi (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest

from harness_core import HarnessCapabilityUnsupportedError, Output, TurnState, has_tool_call
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]


class Answer(pydantic.BaseModel):
    n: int


async def test_stop_when_suspends_between_pi_steps(pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one > one.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo two > two.txt"})]),
        "Both written.",
    )
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, stop_when=has_tool_call("bash"))
        assert agent.capabilities.supports("stop-conditions")
        async with await agent.create_session() as session:
            first = await agent.generate(session=session, prompt="write two files")
            check_stream_shape(first.parts)
            assert first.finish_reason == "tool-calls" and session.state is TurnState.STOPPED
            rest = await agent.continue_generate(session=session, stop_when=[])
            check_stream_shape(rest.parts)
            assert session.state is TurnState.IDLE
    assert rest.finish_reason == "stop" and rest.all_text.endswith("Both written.")
    assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()


def test_plan_mode_is_refused_with_the_reason(pi_agent: PiAgentFactory) -> None:
    with ScriptedModelServer(Script.of("x")) as server, \
            pytest.raises(HarnessCapabilityUnsupportedError, match=r"plan-mode.*read-only"):
        pi_agent(server, mode="plan")


async def test_structured_output_by_instruction_with_a_repair_turn(pi_agent: PiAgentFactory) -> None:
    """The schema reaches the model in the prompt; the tool step's text stays out of the answer
    (the last step's text is validated); a prose answer gets one repair turn."""
    script = Script.of(
        ModelTurn("Counting first.", tool_calls=[ToolCallSpec("bash", {"command": "echo 3"})]),
        "There are three.",
        '{"n": 3}',
    )
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, output=Output.of(Answer, repair_turns=1))
        assert agent.capabilities.supports("structured-output")
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="How many?")
        calls = [r for r in server.model_requests if not r.is_side_request]
    assert result.finish_reason == "stop", result.error
    assert result.output == Answer(n=3)
    assert "one JSON document and nothing else" in json.dumps(calls[0].body)
    assert "did not match the required output schema" in json.dumps(calls[-1].body)  # the repair turn
