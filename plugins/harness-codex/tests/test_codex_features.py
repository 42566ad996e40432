"""Structured output (turn/start outputSchema), stop conditions and capabilities on the real
Codex app-server (scripted Responses model)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pydantic
import pytest

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    ToolResultPart,
    TurnState,
    has_tool_call,
    step_count_is,
)
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


class Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    files: list[str]
    count: int


async def test_output_schema_reaches_the_model_and_validates(make_agent: Callable[..., HarnessAgent],
                                                             tmp_path: Path) -> None:
    script = Script.of('{"files": ["a.py",', ModelTurn('{"files": ["b.py"], "count": 1}'))
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, output=Answer)
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            broken = await agent.generate(session=session, prompt="which files?")
            stream = agent.stream(session=session, prompt="again")
            partials = [p async for p in stream.partial_output_stream]
            result = await stream.consume()
        calls = [r for r in server.requests if r.is_model_call]
    with pytest.raises(ValueError, match="not JSON"):
        _ = broken.output
    check_stream_shape(result.parts)
    assert result.output == Answer(files=["b.py"], count=1)
    assert partials[-1] == {"files": ["b.py"], "count": 1}
    text_format = calls[0].body["text"]["format"]
    assert text_format["type"] == "json_schema"
    assert text_format["schema"]["required"] == ["files", "count"]


def test_plan_mode_is_refused_with_the_reason(make_agent: Callable[..., HarnessAgent]) -> None:
    with ScriptedModelServer(Script.of("x")) as server:
        with pytest.raises(HarnessCapabilityUnsupportedError, match="collaboration mode"):
            make_agent(server, mode="plan")
        agent = make_agent(server, stop_when=step_count_is(1))
    assert agent.capabilities.supports("structured-output") and agent.capabilities.supports("stop-conditions")
    assert not agent.capabilities.supports("plan-mode")


async def test_stop_when_suspends_between_codex_steps(make_agent: Callable[..., HarnessAgent],
                                                      tmp_path: Path) -> None:
    """Two calls in the first response, one in the second: has_tool_call stops after the first
    step (both its results in the slice, nothing of the second); the continuation runs the rest."""
    script = Script.of(
        ModelTurn("Step one.", tool_calls=[ToolCallSpec("exec_command", {"cmd": "sleep 0.5; echo one > one.txt"}),
                                           ToolCallSpec("exec_command", {"cmd": "echo two > two.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec("exec_command", {"cmd": "echo three > three.txt"})]),
        "All three written.",
    )
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, stop_when=has_tool_call("bash"))
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            first = await agent.generate(session=session, prompt="write three files")
            check_stream_shape(first.parts)
            assert first.finish_reason == "tool-calls", first.error
            assert session.state is TurnState.STOPPED and session.has_unfinished_turn()
            assert sorted(c.input["command"] for c in first.all_tool_calls) == [
                "echo two > two.txt", "sleep 0.5; echo one > one.txt"]  # run in parallel: either order
            assert len([p for p in first.parts if isinstance(p, ToolResultPart)]) == 2
            assert first.all_text == "Step one."
            rest = await agent.continue_generate(session=session, stop_when=[])
            check_stream_shape(rest.parts)
            assert TurnState(session.state) is TurnState.IDLE
    assert rest.finish_reason == "stop", rest.error
    assert [c.input["command"] for c in rest.all_tool_calls] == ["echo three > three.txt"]
    assert rest.all_text == "All three written."
    assert all((tmp_path / name).exists() for name in ("one.txt", "two.txt", "three.txt"))


async def test_step_count_stops_after_each_step(make_agent: Callable[..., HarnessAgent], tmp_path: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("exec_command", {"cmd": "echo one"})]),
        ModelTurn(tool_calls=[ToolCallSpec("exec_command", {"cmd": "echo two"})]),
        "Done.",
    )
    with ScriptedModelServer(script) as server:
        agent = make_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            first = await agent.generate(session=session, prompt="go", stop_when=step_count_is(1))
            second = await agent.continue_generate(session=session, stop_when=step_count_is(2))
            third = await agent.continue_generate(session=session, stop_when=[])
    assert [r.finish_reason for r in (first, second, third)] == ["tool-calls", "tool-calls", "stop"]
    assert [[c.input["command"] for c in r.all_tool_calls] for r in (first, second)] == [["echo one"], ["echo two"]]
    assert third.text == "Done."
