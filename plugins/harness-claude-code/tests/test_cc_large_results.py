"""Claude Code delivers host-tool results up to the core's 100,000-character cut intact, and
the stream shows what the model got (issue 16, item 11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


def text_of(size: int) -> str:
    line = "0123456789 abcdefghij ABCDEFGHIJ klmnopqrst KLMNOPQRST uvwxyz UVWXYZ .,;:!?\n"
    return (line * (size // len(line) + 1))[:size]


@pytest.mark.parametrize("size", [90_000, 150_000])
async def test_a_large_host_result_reaches_the_model_as_the_stream_shows_it(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, size: int
) -> None:
    big = define_harness_tool(name="big", description="d", input={"type": "object"},
                              execute=lambda v, c: text_of(size))
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__big", {}, id="toolu_b1")]),
                                    "read it"])
    settings = adapter_settings(server)
    settings.pop("cwd", None)
    agent = HarnessAgent(harness=claude_code(**settings), tools=[big], include_plugin_tools=False)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
    [part] = [p for p in result.parts if p.type in ("tool-result", "tool-error")]
    [sent] = server.model_requests[-1].tool_results
    assert part.type == "tool-result" and not sent.is_error
    assert sent.text == part.output
    if size <= 100_000:
        assert sent.text == text_of(size)
    else:
        assert sent.text.startswith(text_of(100_000)[:99_000])
        assert sent.text.endswith(f"[output truncated: {size - 100_000} of {size} characters omitted]")
