"""Stop conditions and capability refusals on real pi (scripted model)."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from harness_core import HarnessCapabilityUnsupportedError, TurnState, has_tool_call
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


def test_output_and_plan_mode_are_refused_with_the_reason(pi_agent: PiAgentFactory) -> None:
    with ScriptedModelServer(Script.of("x")) as server:
        with pytest.raises(HarnessCapabilityUnsupportedError, match="output-schema"):
            pi_agent(server, output=Answer)
        with pytest.raises(HarnessCapabilityUnsupportedError, match=r"plan-mode.*read-only"):
            pi_agent(server, mode="plan")
