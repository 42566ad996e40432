"""Host tools as Codex dynamic tools: results and errors as ``contentItems`` / ``success``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness_core import HarnessAgent, ToolErrorPart, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


async def _explode(args: Any, _context: Any) -> str:
    raise RuntimeError(f"no forecast for {args['city']}")


async def test_a_failing_host_tool_reaches_the_model_as_an_error(make_agent: Callable[..., HarnessAgent]) -> None:
    forecast = define_harness_tool(
        name="forecast", description="Forecast for a city.", execute=_explode, read_only=True,
        input={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("forecast", {"city": "Oslo"}, id="f-1")]), "sorry")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[forecast])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="forecast?")
        finally:
            await session.destroy()
        second = [r for r in server.requests if r.is_model_call][-1]
    assert result.finish_reason == "stop", result.error
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart) and p.tool_call_id == "f-1"]
    assert "no forecast for Oslo" in error.error
    outputs = [i for i in second.body["input"] if i.get("type") == "function_call_output" and i["call_id"] == "f-1"]
    assert outputs and "no forecast for Oslo" in str(outputs[0]["output"])


async def test_a_host_tool_image_reaches_the_model_as_an_input_image(make_agent: Callable[..., HarnessAgent]) -> None:
    from harness_core import ToolResultPart
    from harness_core.testing import PNG_1X1, ImageView

    screenshot = define_harness_tool(
        name="screenshot", description="Take a screenshot.", input={"type": "object", "properties": {}},
        execute=lambda input, ctx: {"content": [
            {"type": "text", "text": "the screen"}, {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]})
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("screenshot", {}, id="s-1")]), "seen")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[screenshot])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="look")
        finally:
            await session.destroy()
        seen = [r for r in server.model_requests if not r.is_side_request][-1].tool_results
    assert result.finish_reason == "stop", result.error
    [answer] = [r for r in seen if r.call_id == "s-1"]
    assert answer.images == (ImageView("image/png", PNG_1X1),)
    assert "the screen" in answer.text and "[audio: audio/wav, 6 bytes]" in answer.text
    part = next(p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "s-1")
    assert part.warnings is not None and len(part.warnings) == 1 and "audio" in part.warnings[0]
