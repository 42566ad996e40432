"""OpenTelemetry spans through the core (scripted adapter; the SDK's in-memory exporter)."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness_core import HarnessConfigurationError, Telemetry, define_harness_tool, step_count_is
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

pytestmark = pytest.mark.anyio


def tracing() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def secret_tool() -> Any:
    return define_harness_tool(name="lookup", description="Look up.", input={"type": "object"},
                               execute=lambda input, ctx: "SECRET-OUTPUT")


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def two_steps() -> ScriptedAdapter:
    return ScriptedAdapter([[[CallHost("lookup", {"token": "SECRET-INPUT"}, id="c1")], [EchoResults("saw")]]])


async def test_turn_step_and_tool_spans_with_attributes() -> None:
    tracer, exporter = tracing()
    agent = two_steps().agent(tools=[secret_tool()], telemetry=Telemetry(tracer=tracer))
    assert agent.capabilities.supports("telemetry")
    async with await agent.create_session(session_id="s1") as session:
        result = await agent.generate(session=session, prompt="go")
    spans = exporter.get_finished_spans()
    [turn] = by_name(spans, "harness.turn")
    steps = by_name(spans, "harness.step")
    [tool] = by_name(spans, "harness.tool_call")
    assert result.finish_reason == "stop" and len(steps) == 2
    assert turn.attributes is not None and turn.attributes["harness.id"] == "scripted"
    assert turn.attributes["harness.session_id"] == "s1" and turn.attributes["harness.turn.finish_reason"] == "stop"
    assert all(s.parent is not None and s.parent.span_id == turn.context.span_id for s in steps)
    assert tool.parent is not None and tool.parent.span_id == steps[0].context.span_id
    assert tool.attributes is not None and tool.attributes["harness.tool.name"] == "lookup"
    assert tool.attributes["harness.tool.executor"] == "host" and tool.attributes["harness.tool.outcome"] == "result"
    assert [s.attributes["harness.step.index"] for s in steps if s.attributes] == [1, 2]
    every = repr([dict(s.attributes or {}) for s in spans])
    assert "SECRET-INPUT" not in every and "SECRET-OUTPUT" not in every  # content stays out by default


async def test_content_is_recorded_only_when_asked() -> None:
    tracer, exporter = tracing()
    agent = two_steps().agent(tools=[secret_tool()], telemetry=Telemetry(tracer=tracer, record_content=True))
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
    [tool] = by_name(exporter.get_finished_spans(), "harness.tool_call")
    assert tool.attributes is not None
    assert "SECRET-INPUT" in str(tool.attributes["harness.tool.input"])
    assert "SECRET-OUTPUT" in str(tool.attributes["harness.tool.output"])


async def test_a_paused_turn_keeps_one_turn_span_with_the_decision() -> None:
    tracer, exporter = tracing()
    adapter = ScriptedAdapter([[[CallHost("lookup", {}, id="c1")], [EchoResults("saw")]]])
    agent = adapter.agent(tools=[secret_tool()], tool_approval={"lookup": "user-approval"},
                          telemetry=Telemetry(tracer=tracer))
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
        assert by_name(exporter.get_finished_spans(), "harness.turn") == []  # still open while paused
        await agent.continue_generate(session=session, approval_responses=[{"approval_id": "approval-c1",
                                                                            "approved": False, "reason": "no"}])
    spans = exporter.get_finished_spans()
    [turn] = by_name(spans, "harness.turn")
    [tool] = by_name(spans, "harness.tool_call")
    assert tool.attributes is not None and tool.attributes["harness.tool.decision"] == "denied"
    assert tool.attributes["harness.tool.outcome"] == "denied"
    assert tool.context.trace_id == turn.context.trace_id


async def test_the_trace_is_carried_across_a_suspended_turn() -> None:
    tracer, exporter = tracing()
    adapter = ScriptedAdapter([[[CallHost("lookup", {}, id="c1")], [EchoResults("saw")]]], supports_suspend=True)
    agent = adapter.agent(tools=[secret_tool()], tool_approval={"lookup": "user-approval"},
                          telemetry=Telemetry(tracer=tracer))
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    state = await session.suspend_turn()
    assert isinstance(state["traceparent"], str)
    continued = await agent.create_session(continue_from=state)
    done = await agent.continue_generate(session=continued, approval_responses=[{"approval_id": "approval-c1",
                                                                                "approved": True}])
    await continued.destroy()
    assert done.finish_reason == "stop"
    first, second = by_name(exporter.get_finished_spans(), "harness.turn")
    assert first.attributes is not None and first.attributes["harness.turn.suspended"] is True
    assert second.parent is not None and second.parent.span_id == first.context.span_id
    assert second.context.trace_id == first.context.trace_id  # one trace, not a broken one
    assert second.attributes is not None and second.attributes["harness.turn.continued"] is True


async def test_a_stopped_turn_is_one_span_and_telemetry_is_checked() -> None:
    tracer, exporter = tracing()
    agent = two_steps().agent(tools=[secret_tool()], telemetry=Telemetry(tracer=tracer), stop_when=step_count_is(1))
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
        await agent.continue_generate(session=session, stop_when=[])
    assert len(by_name(exporter.get_finished_spans(), "harness.turn")) == 1
    with pytest.raises(HarnessConfigurationError, match="telemetry must be"):
        two_steps().agent(telemetry="yes")
    assert ScriptedAdapter([]).agent(telemetry=False).features.telemetry is None


async def test_an_abandoned_turn_ends_its_spans() -> None:
    tracer, exporter = tracing()
    adapter = ScriptedAdapter([[[CallHost("lookup", {}, id="c1")], [EchoResults("saw")]]])
    agent = adapter.agent(tools=[secret_tool()], tool_approval={"lookup": "user-approval"},
                          telemetry=Telemetry(tracer=tracer))
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
        await session.abort_turn("changed my mind")
    spans = exporter.get_finished_spans()
    assert len(by_name(spans, "harness.turn")) == 1
    [tool] = by_name(spans, "harness.tool_call")
    assert tool.attributes is not None and tool.attributes["harness.tool.outcome"] == "unfinished"
