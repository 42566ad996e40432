"""Rich host tool results on Claude Code (issue 23 item 4): the real CLI receives the
host tool's result as MCP content (text and image blocks) and sends the image on to the
model (asserted on what the scripted Anthropic server recorded); an item it cannot take
becomes a placeholder with a warning on the ``tool-result`` part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox, ToolResultPart, define_harness_tool
from harness_core.testing import PNG_1X1, ImageView, ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]

screenshot = define_harness_tool(
    name="screenshot", description="Take a screenshot.", input={"type": "object", "properties": {}},
    execute=lambda input, ctx: {"content": [
        {"type": "text", "text": "the screen"},
        {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]},
)


async def test_a_host_tool_image_reaches_the_model_through_the_cli(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__screenshot", {})]),
        "I see a tiny picture.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), tools=[screenshot])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="look")
    assert result.finish_reason == "stop", result.parts
    [seen] = server.model_requests[-1].tool_results
    assert seen.images == (ImageView("image/png", PNG_1X1),)
    assert "the screen" in seen.text and "[audio: audio/wav, 6 bytes]" in seen.text
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert part.output[1] == {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}
    assert part.warnings is not None and len(part.warnings) == 1 and "audio" in part.warnings[0]
