"""OpenTelemetry spans on real pi (scripted model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness_core import Telemetry
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]


async def test_pi_turn_and_builtin_spans(pi_agent: PiAgentFactory, workspace: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo SECRET-OUT"}, id="b1")]), "Done.")
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, telemetry=Telemetry(tracer=provider.get_tracer("t")))
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop"
    spans = exporter.get_finished_spans()
    [turn] = [s for s in spans if s.name == "harness.turn"]
    [call] = [s for s in spans if s.name == "harness.tool_call"]
    assert turn.attributes and turn.attributes["harness.id"] == "pi"
    assert call.attributes and call.attributes["harness.tool.name"] == "bash"
    assert call.attributes["harness.tool.executor"] == "runtime" and call.attributes["harness.tool.outcome"] == "result"
    assert "SECRET-OUT" not in repr([dict(s.attributes or {}) for s in spans])
