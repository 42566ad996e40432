"""Optional conformance sections for steering, skills and telemetry (mixed into the suite).

Like :mod:`harness_core.testing.conformance.features`, each test names the capability it
needs; on an adapter that does not declare it the test skips with the adapter's reason.
What reached the model is checked through the scenario model itself: a response with
``echo_seen`` markers says each marker its request carried (see
:class:`~harness_core.testing.conformance.ModelResponse`), so these sections need a runtime
served by :func:`~harness_core.testing.scenario_script` (the in-process scripted adapter
declares none of these capabilities).

The agent spec (:func:`~harness_core.testing.conformance.fixtures.agent_kwargs_from_spec`)
carries what the sections need: ``skills`` (JSON), ``telemetry`` (a
:class:`~harness_core.Telemetry` with an in-memory tracer) and ``extra_tools`` (host tools
of the test: the steering section's tool steers the running turn from its ``execute``,
while the runtime waits for its result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from harness_core.agent.session import HarnessSession
from harness_core.parts.models import ToolResultPart
from harness_core.telemetry import Telemetry
from harness_core.testing.conformance.checks import check_stream_shape, parts_of
from harness_core.testing.conformance.runner import SuiteSettings, scenario_run
from harness_core.testing.conformance.scenario import Scenario, ScenarioPrompt, builtin, host, say
from harness_core.tools.definition import ToolContext, define_harness_tool

__all__ = ["CapabilityChecks"]

STEER_MARKER = "CONFORMANCE-STEER-5E1B"
SKILL_NAME = "conformance-skill"
SKILL_DESCRIPTION = "Use when the conformance suite asks for CONFORMANCE-SKILL-9C4D."


class CapabilityChecks:
    """Steering, skills and telemetry sections (a mixin of the conformance suite)."""

    @pytest.mark.anyio
    async def test_steering_reaches_the_next_model_call(self, workspace: Path) -> None:
        """``session.steer_turn(text)`` while the runtime waits for a host tool's result: the
        model's next request carries the text, and the turn finishes normally."""
        holder: dict[str, HarnessSession] = {}

        async def steer(tool_input: Any, ctx: ToolContext) -> str:
            await holder["session"].steer_turn(f"Also say {STEER_MARKER}.")
            return "steered"

        tool = define_harness_tool(name="conformance_steer", description="Check in with the user.",
                                   input={"type": "object", "properties": {}}, read_only=True, execute=steer)
        scenario = Scenario("test_steering_reaches_the_next_model_call", (ScenarioPrompt("Check in", (
            host("conformance_steer", "conf-steer-1"),
            say("Checked in:", echo_seen=(STEER_MARKER,)),
        )),))
        spec = {"extra_tools": [tool]}
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, spec,
                                requires=frozenset({"steering"})) as (agent, session, _):
            holder["session"] = session
            result = await agent.generate(session=session, prompt="Check in")
        check_stream_shape(result.parts)
        assert result.finish_reason == "stop", result.error
        assert [r.output for r in parts_of(result.parts, ToolResultPart)] == ["steered"]
        assert STEER_MARKER in result.all_text, "the steering message did not reach the model's next request"

    @pytest.mark.anyio
    async def test_skill_reaches_the_model(self, workspace: Path) -> None:
        """``skills=[...]``: the skill's name and description reach the model (listed in its
        instructions or tools), and nothing is written into the workspace."""
        scenario = Scenario("test_skill_reaches_the_model", (ScenarioPrompt("Which skills?", (
            say("Skills:", echo_seen=(SKILL_NAME, SKILL_DESCRIPTION)),
        )),))
        spec = {"skills": [{"name": SKILL_NAME, "description": SKILL_DESCRIPTION,
                            "content": "Answer CONFORMANCE-SKILL-BODY.", "files": {"notes/a.txt": "note"}}]}
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, spec,
                                requires=frozenset({"skills"})) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Which skills?")
        landed = [p for p in workspace.rglob("*") if SKILL_NAME in str(p)]  # noqa: ASYNC240 (a test check)
        check_stream_shape(result.parts)
        assert result.finish_reason == "stop", result.error
        assert SKILL_NAME in result.all_text and SKILL_DESCRIPTION in result.all_text, (
            f"the skill was not listed to the model: {result.all_text!r}")
        assert not landed, f"a skill landed in the workspace: {landed}"

    @pytest.mark.anyio
    async def test_telemetry_spans_for_turn_step_and_tool_calls(self, workspace: Path) -> None:
        """``telemetry=Telemetry(tracer=...)``: one ``harness.turn`` span, ``harness.step`` spans
        under it and a ``harness.tool_call`` span per call (host ``host``, and built-in ``runtime``
        when the runtime has a ``bash`` built-in), all in one trace, with no tool output in the
        attributes."""
        pytest.importorskip("opentelemetry.sdk.trace", reason="the OpenTelemetry SDK is not installed")
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        scenario = Scenario("test_telemetry_spans_for_turn_step_and_tool_calls", (ScenarioPrompt("Trace it", (
            host("conformance_add", "conf-trace-1", a=2, b=3),
            builtin("bash", "conf-trace-2", command="echo CONFORMANCE-TRACE-OUT"),
            say("traced"),
        )),))
        spec = {"telemetry": Telemetry(tracer=provider.get_tracer("conformance"))}
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, spec,
                                requires=frozenset({"telemetry"})) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Trace it")
            harness_id = agent.adapter.harness_id
            expected = {"conformance_add": "host", **({"bash": "runtime"} if "bash" in agent.builtins else {})}
        check_stream_shape(result.parts)
        assert result.finish_reason == "stop", result.error
        spans = exporter.get_finished_spans()
        turns = [s for s in spans if s.name == "harness.turn"]
        assert len(turns) == 1, [s.name for s in spans]
        turn = turns[0]
        assert turn.attributes is not None and turn.attributes["harness.id"] == harness_id
        assert turn.attributes["harness.turn.finish_reason"] == "stop"
        steps = [s for s in spans if s.name == "harness.step"]
        assert steps and all(s.parent is not None and s.parent.span_id == turn.context.span_id for s in steps)
        calls = {str((s.attributes or {}).get("harness.tool.name")): s for s in spans if s.name == "harness.tool_call"}
        assert set(expected) <= set(calls), sorted(calls)
        step_ids = {s.context.span_id for s in steps}
        for name, executor in expected.items():
            attributes = calls[name].attributes or {}
            assert attributes.get("harness.tool.executor") == executor, (name, dict(attributes))
            assert attributes.get("harness.tool.outcome") == "result", (name, dict(attributes))
            parent = calls[name].parent
            assert parent is not None and parent.span_id in step_ids, f"{name}'s span is not under a step"
            assert calls[name].context.trace_id == turn.context.trace_id
        assert "CONFORMANCE-TRACE-OUT" not in repr([dict(s.attributes or {}) for s in spans])
