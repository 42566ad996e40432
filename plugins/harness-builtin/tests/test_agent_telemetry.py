"""OpenTelemetry spans on the built-in harness (scripted model server, the SDK's in-memory exporter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness_core import HarnessAgent, LocalSandbox, Telemetry
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


async def test_builtin_turn_step_and_tool_spans(scripted_model_server: Any, workspace: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo SECRET-OUT"})]),
        "Done.",
    ))
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False, permission_mode="allow-reads",
                         harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                          "api_key": "k", "max_retries": 0},
                         telemetry=Telemetry(tracer=provider.get_tracer("t")))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="run it")  # bash needs an approval here
        [request] = first.approval_requests
        done = await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    assert done.finish_reason == "stop"
    spans = exporter.get_finished_spans()
    [turn] = [s for s in spans if s.name == "harness.turn"]
    steps = [s for s in spans if s.name == "harness.step"]
    [tool] = [s for s in spans if s.name == "harness.tool_call"]
    # the stream's steps: the call's, the continuation's (the approved call's result), the answer's
    assert len(steps) == 3 and all(s.parent and s.parent.span_id == turn.context.span_id for s in steps)
    assert tool.parent is not None and tool.parent.span_id == steps[0].context.span_id
    assert turn.attributes and turn.attributes["harness.id"] == "builtin"
    assert turn.attributes["harness.turn.finish_reason"] == "stop"
    assert turn.attributes["gen_ai.usage.input_tokens"] > 0  # usage from the scripted model
    assert tool.attributes and tool.attributes["harness.tool.name"] == "bash"
    assert tool.attributes["harness.tool.executor"] == "runtime"
    assert tool.attributes["harness.tool.decision"] == "approved"
    assert tool.attributes["harness.tool.outcome"] == "result"
    assert "SECRET-OUT" not in repr([dict(s.attributes or {}) for s in spans])
