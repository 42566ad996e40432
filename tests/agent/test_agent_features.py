"""Structured output, stop conditions and capabilities through the core (scripted adapter)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pydantic
import pytest

from harness_core import (
    Capability,
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    Output,
    OutputValidationError,
    StopContext,
    TurnState,
    TurnStateError,
    capabilities_of,
    define_harness_tool,
    has_tool_call,
    step_count_is,
    supported,
    unsupported,
)
from harness_core.testing import CallHost, Say, ScriptedAdapter
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio


class Weather(pydantic.BaseModel):
    city: str
    celsius: int


def _lookup() -> Any:
    def execute(input: dict[str, Any], context: Any) -> str:
        return f"looked up {input['q']}"

    return define_harness_tool(name="lookup", description="Look something up.",
                               input={"type": "object", "properties": {"q": {"type": "string"}},
                                      "required": ["q"], "additionalProperties": False},
                               read_only=True, execute=execute)


# -- structured output ------------------------------------------------------------------


async def test_output_model_is_sent_and_validated(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say('{"city": "Paris", "celsius": 12}')]]], workspace=tmp_path)
    agent = adapter.agent(output=Weather)
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="weather?")
    assert result.output == Weather(city="Paris", celsius=12)
    schema = adapter.prompts[0].output_schema
    assert schema is not None and schema["required"] == ["city", "celsius"]


async def test_output_per_call_json_schema_and_fenced_answer(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say("plain")]], [[Say('```json\n{"n": 3}\n```')]]], workspace=tmp_path)
    agent = adapter.agent()
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    async with await agent.create_session() as session:
        plain = await agent.generate(session=session, prompt="no schema")
        assert plain.output is None and adapter.prompts[0].output_schema is None
        result = await agent.generate(session=session, prompt="count", output=schema)
    assert result.output == {"n": 3}
    assert adapter.prompts[1].output_schema == schema


async def test_invalid_output_raises_with_paths(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say('{"city": "Paris", "celsius": "warm"}')]]], workspace=tmp_path)
    agent = adapter.agent(output=Weather)
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="weather?")
    with pytest.raises(OutputValidationError) as info:
        _ = result.output
    assert info.value.problems[0][0] == "$.celsius"
    assert result.text == '{"city": "Paris", "celsius": "warm"}'


async def test_not_json_raises(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say("It is 12 degrees in Paris.")]]], workspace=tmp_path)
    agent = adapter.agent(output=Weather)
    async with await agent.create_session() as session:
        stream = agent.stream(session=session, prompt="weather?")
        with pytest.raises(OutputValidationError, match="not JSON"):
            await stream.output


async def test_repair_turn_fixes_the_answer(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say('{"city": "Paris"}')]], [[Say('{"city": "Paris", "celsius": 12}')]]],
                              workspace=tmp_path)
    agent = adapter.agent(output=Output.of(Weather, repair_turns=1))
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="weather?")
    assert result.output == Weather(city="Paris", celsius=12)
    assert len(adapter.prompts) == 2
    repair = adapter.prompts[1].prompt
    assert "$.celsius" in repair and "did not match" in repair
    assert adapter.prompts[1].output_schema == adapter.prompts[0].output_schema


async def test_partial_output_stream(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([[[Say('{"city": "Par'), Say('is", "cel'), Say('sius": 12}')]]], workspace=tmp_path)
    agent = adapter.agent(output=Weather)
    async with await agent.create_session() as session:
        result = agent.stream(session=session, prompt="weather?")
        partials = [p async for p in result.partial_output_stream]
        final = await result.output
    assert partials[0] == {"city": "Par"}
    assert partials[-1] == {"city": "Paris", "celsius": 12}
    assert final == Weather(city="Paris", celsius=12)


def test_output_setting_errors(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([], workspace=tmp_path)
    with pytest.raises(HarnessConfigurationError, match="output="):
        adapter.agent(output="not a schema")
    with pytest.raises(HarnessConfigurationError, match="output="):
        adapter.agent(output={"type": "object", "properties": {"a": {"type": "string", "format": "x"}}})


def test_unsupported_output_fails_at_construction(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([], workspace=tmp_path)
    adapter.capabilities[Capability.STRUCTURED_OUTPUT] = unsupported("no JSON mode here")
    with pytest.raises(HarnessCapabilityUnsupportedError, match="no JSON mode here"):
        adapter.agent(output=Weather)
    agent = adapter.agent()
    with pytest.raises(HarnessCapabilityUnsupportedError, match="structured-output"):
        agent.features.for_call(output=Weather)


# -- stop conditions ---------------------------------------------------------------------


def _three_steps() -> list[Any]:
    return [[
        [CallHost("lookup", {"q": "a"})],
        [CallHost("lookup", {"q": "b"})],
        [Say("done")],
    ]]


async def test_step_count_stops_then_continues(tmp_path: Path) -> None:
    adapter = ScriptedAdapter(_three_steps(), workspace=tmp_path)
    agent = adapter.agent(tools=[_lookup()], stop_when=step_count_is(1))
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="go")
        check_stream_shape(first.parts)
        assert first.finish_reason == "tool-calls"
        assert len(first.steps) == 1 and first.steps[0].tool_calls[0].tool_name == "lookup"
        assert session.state is TurnState.STOPPED and session.has_unfinished_turn()
        with pytest.raises(TurnStateError):
            agent.stream(session=session, prompt="another")
        rest = await agent.continue_generate(session=session, stop_when=[])
        check_stream_shape(rest.parts)
        assert rest.finish_reason == "stop" and rest.text == "done"
        assert session.state is TurnState.IDLE
    assert [r[0].content for r in adapter.tool_results.values()] == ["looked up a", "looked up b"]


async def test_has_tool_call_and_custom_condition(tmp_path: Path) -> None:
    seen: list[int] = []

    async def after_two(context: StopContext) -> bool:
        seen.append(len(context.steps))
        return len(context.steps) >= 2

    adapter = ScriptedAdapter(_three_steps() + _three_steps(), workspace=tmp_path)
    agent = adapter.agent(tools=[_lookup()])
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="go", stop_when=has_tool_call("lookup"))
        assert first.finish_reason == "tool-calls" and session.state is TurnState.STOPPED
        await session.abort_turn()
        assert session.state is TurnState.IDLE
        second = await agent.generate(session=session, prompt="again", stop_when=after_two)
        assert second.finish_reason == "tool-calls" and len(second.steps) == 2
        assert seen == [1, 2]
        third = await agent.continue_generate(session=session)
        assert third.finish_reason == "stop"  # the last step made no call: no evaluation
        assert seen == [1, 2]


async def test_no_stop_without_match_and_raising_condition_fails_the_slice(tmp_path: Path) -> None:
    def broken(context: StopContext) -> bool:
        raise RuntimeError("condition bug")

    adapter = ScriptedAdapter(_three_steps() + _three_steps(), workspace=tmp_path)
    agent = adapter.agent(tools=[_lookup()])
    async with await agent.create_session() as session:
        whole = await agent.generate(session=session, prompt="go", stop_when=step_count_is(10))
        assert whole.finish_reason == "stop" and len(whole.steps) == 3
        failed = await agent.generate(session=session, prompt="go", stop_when=broken)
        assert failed.finish_reason == "error" and "condition bug" in (failed.error or "")
        assert session.state is TurnState.IDLE


async def test_stopped_turn_cannot_be_suspended_or_answered(tmp_path: Path) -> None:
    adapter = ScriptedAdapter(_three_steps(), workspace=tmp_path)
    agent = adapter.agent(tools=[_lookup()], stop_when=step_count_is(1))
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
        with pytest.raises(TurnStateError):
            await session.suspend_turn()
        with pytest.raises(TurnStateError, match="not pending"):
            agent.continue_stream(session=session, approval_responses=[{"approval_id": "x", "approved": True}])


def test_stop_when_setting_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        step_count_is(0)
    with pytest.raises(ValueError):
        has_tool_call()
    with pytest.raises(HarnessConfigurationError, match="stop_when"):
        ScriptedAdapter([], workspace=tmp_path).agent(stop_when=[3])


# -- capabilities ------------------------------------------------------------------------


def test_capabilities_table(tmp_path: Path) -> None:
    adapter = ScriptedAdapter([], workspace=tmp_path, supports_builtin_filtering=False)
    agent = adapter.agent()
    caps = agent.capabilities
    assert caps.supports("structured-output") and caps.supports(Capability.STOP_CONDITIONS)
    assert not caps.supports("builtin-filtering") and caps["builtin-approvals"].supported
    assert caps["skills"].detail == "not declared by the adapter"
    assert set(caps.to_json()) == {c.value for c in Capability}
    assert "plan-mode" in caps.format_table()
    json.dumps(caps.to_json())
    with pytest.raises(HarnessCapabilityUnsupportedError, match=r"plan-mode.*no read-only mode"):
        caps.require("plan-mode", "mode='plan'")
    with pytest.raises(HarnessCapabilityUnsupportedError, match="plan-mode"):
        adapter.agent(mode="plan")
    with pytest.raises(HarnessConfigurationError, match="mode"):
        adapter.agent(mode="review")


def test_capabilities_of_checks_declarations() -> None:
    class Bare:
        harness_id = "bare"
        supports_builtin_approvals = True
        supports_builtin_filtering = False
        capabilities: ClassVar = {"plan-mode": supported("x"), "builtin-filtering": supported("contradicted")}

    caps = capabilities_of(Bare())
    assert caps.supports("plan-mode") and caps.supports("builtin-approvals")
    assert not caps.supports("builtin-filtering")  # the protocol flag wins

    class Wrong:
        harness_id = "wrong"
        capabilities: ClassVar = {"telepathy": True}

    with pytest.raises(ValueError):
        capabilities_of(Wrong())
    assert isinstance(HarnessAgent, type)
