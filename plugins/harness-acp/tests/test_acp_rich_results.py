"""Rich host tool results through the ACP relay (issue 23 item 4): the relay answers the
agent with MCP text and image content, and each known agent sends the image on to its
model (asserted on what the scripted server recorded); other items become placeholders
with a warning on the ``tool-result`` part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import HarnessAgent, LocalSandbox, ToolResultPart, define_harness_tool
from harness_core.testing import PNG_1X1, ImageView, ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = pytest.mark.anyio

screenshot = define_harness_tool(
    name="screenshot", description="Take a screenshot.", input={"type": "object", "properties": {}},
    execute=lambda input, ctx: {"content": [
        {"type": "text", "text": "the screen"}, {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]},
)


async def _run(make: Any, workspace: Path) -> tuple[Any, Any]:
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__screenshot", {})]), "Saw it."]
    with ScriptedModelServer(script) as server, anyio.fail_after(180):
        agent = HarnessAgent(harness=make(server), tools=[screenshot], include_plugin_tools=False)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="look")
        last = server.model_requests[-1]
    return result, last


def _check(result: Any, last: Any, *, in_user_message: bool = False) -> None:
    assert result.finish_reason == "stop", result.error
    seen = last.tool_results[-1]
    if in_user_message:  # Chat Completions: pi sends the images in the user message after the result
        after = last.messages[-1]
        assert after.role == "user" and after.images == (ImageView("image/png", PNG_1X1),)
    else:
        assert seen.images == (ImageView("image/png", PNG_1X1),)
    assert "the screen" in seen.text and "[audio: audio/wav, 6 bytes]" in seen.text
    part = next(p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_name == "screenshot")
    assert part.warnings is not None and len(part.warnings) == 1 and "audio" in part.warnings[0]


@pytest.mark.requires_runtime("codex-acp", "acp")
async def test_a_host_tool_image_reaches_codex_acp_s_model(codex_acp: Any, workspace: Path) -> None:
    _check(*await _run(codex_acp, workspace))


@pytest.mark.requires_runtime("pi-acp", "pi", "acp")
async def test_a_host_tool_image_reaches_pi_acp_s_model(pi_acp: Any, workspace: Path) -> None:
    _check(*await _run(pi_acp, workspace), in_user_message=True)
