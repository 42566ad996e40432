"""The ACP adapter's capability table: plan mode is refused at agent construction with the
protocol's reason, structured output and stop conditions on a plain command too; stop
conditions and structured output (by instruction) on codex-acp and pi-acp (real agents,
scripted model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pydantic
import pytest
from harness_acp import acp

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    Output,
    ToolResultPart,
    TurnState,
    has_tool_call,
    step_count_is,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape


class Answer(pydantic.BaseModel):
    n: int


@pytest.mark.parametrize(("setting", "reason"), [
    ({"output": Answer}, "no output-schema"),
    ({"stop_when": step_count_is(2)}, "no model-step boundaries"),
    ({"mode": "plan"}, "agent-specific"),
])
def test_unsupported_features_fail_at_construction(setting: dict[str, object], reason: str) -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError, match=reason):
        HarnessAgent(harness=acp(command="my-agent --acp", name="mine"), include_plugin_tools=False, **setting)


def test_capability_table() -> None:
    caps = HarnessAgent(harness=acp(command="my-agent --acp", name="mine"), include_plugin_tools=False).capabilities
    assert caps.supports("mcp-servers") and caps.supports("builtin-approvals")
    assert not caps.supports("compaction") and not caps.supports("builtin-filtering")


def _stop_script(agent: str) -> list[Any]:
    tool, key = ("exec_command", "cmd") if agent == "codex-acp" else ("bash", "command")
    return [
        ModelTurn("Step one.", tool_calls=[ToolCallSpec(tool, {key: "sleep 0.5; echo one > one.txt"}),
                                           ToolCallSpec(tool, {key: "echo two > two.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec(tool, {key: "echo three > three.txt"})]),
        "All three written.",
    ]


def test_codex_acp_refuses_stop_conditions_with_the_reason(codex_acp: Any) -> None:
    """codex-acp 0.16 reports some calls' completion after the next step's calls, so its step
    boundaries cannot be inferred reliably: refused at construction (fail closed)."""
    with ScriptedModelServer(["unused"], formats=["responses"]) as server, \
            pytest.raises(HarnessCapabilityUnsupportedError, match="completion only after the next model"):
        HarnessAgent(harness=codex_acp(server), include_plugin_tools=False, stop_when=has_tool_call("bash"))


@pytest.mark.anyio
@pytest.mark.parametrize("agent", [
    pytest.param("pi-acp", marks=pytest.mark.requires_runtime("pi-acp", "pi", "acp")),
])
async def test_stop_when_suspends_between_steps_and_continues(agent: str, request: pytest.FixtureRequest,
                                                              workspace: Path) -> None:
    """Two calls in the first model response, one in the second: ``has_tool_call("bash")``
    stops after the first step (both results in the slice, nothing of the second step); the
    prompt stays open and ``continue_generate`` reads the rest of the same turn."""
    make = request.getfixturevalue(agent.replace("-", "_"))
    formats = {"formats": ["responses"]} if agent == "codex-acp" else {}
    with ScriptedModelServer(_stop_script(agent), **formats) as server, anyio.fail_after(180):
        harness = HarnessAgent(harness=make(server), include_plugin_tools=False, stop_when=has_tool_call("bash"))
        assert harness.capabilities.supports("stop-conditions")
        async with await harness.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await harness.generate(session=session, prompt="write three files")
            check_stream_shape(first.parts)
            assert first.finish_reason == "tool-calls", first.error
            assert session.state is TurnState.STOPPED and session.has_unfinished_turn()
            assert sorted(c.input["command"] for c in first.all_tool_calls) == [
                "echo two > two.txt", "sleep 0.5; echo one > one.txt"]  # run in parallel: either order
            assert len([p for p in first.parts if isinstance(p, ToolResultPart)]) == 2
            assert first.all_text == "Step one."
            rest = await harness.continue_generate(session=session, stop_when=[])
            check_stream_shape(rest.parts)
            assert TurnState(session.state) is TurnState.IDLE
    assert rest.finish_reason == "stop", rest.error
    assert [c.input["command"] for c in rest.all_tool_calls] == ["echo three > three.txt"]
    assert rest.all_text == "All three written."
    assert all((workspace / name).exists() for name in ("one.txt", "two.txt", "three.txt"))


@pytest.mark.anyio
@pytest.mark.parametrize("agent", [
    pytest.param("codex-acp", marks=pytest.mark.requires_runtime("codex-acp", "acp")),
    pytest.param("pi-acp", marks=pytest.mark.requires_runtime("pi-acp", "pi", "acp")),
])
async def test_structured_output_by_instruction_with_a_repair_turn(agent: str, request: pytest.FixtureRequest,
                                                                   workspace: Path) -> None:
    """The schema reaches the model in the prompt; a tool step's text stays out of the answer
    (the last step's text is validated); a prose answer gets one repair turn."""
    make = request.getfixturevalue(agent.replace("-", "_"))
    tool, key = ("exec_command", "cmd") if agent == "codex-acp" else ("bash", "command")
    script = [
        ModelTurn("Counting first.", tool_calls=[ToolCallSpec(tool, {key: "echo 3"})]),
        "There are three.",
        '```json\n{"n": 3}\n```',
    ]
    formats = {"formats": ["responses"]} if agent == "codex-acp" else {}
    with ScriptedModelServer(script, **formats) as server, anyio.fail_after(180):
        harness = HarnessAgent(harness=make(server), include_plugin_tools=False,
                               output=Output.of(Answer, repair_turns=1))
        assert harness.capabilities.supports("structured-output")
        async with await harness.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await harness.generate(session=session, prompt="How many?")
        calls = [r for r in server.model_requests if not r.is_side_request]
    assert result.finish_reason == "stop", result.error
    assert result.output == Answer(n=3)
    first = json.dumps(calls[0].body)
    assert "one JSON document and nothing else" in first and '\\"n\\"' in first
    assert "did not match the required output schema" in json.dumps(calls[-1].body)  # the repair turn
