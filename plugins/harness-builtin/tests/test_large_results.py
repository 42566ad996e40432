"""The built-in harness gives the model a large host-tool result as the stream shows it
(issue 16, item 11): the core's 100,000-character cut, marker included, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


def text_of(size: int) -> str:
    line = "0123456789 abcdefghij ABCDEFGHIJ klmnopqrst KLMNOPQRST uvwxyz UVWXYZ .,;:!?\n"
    return (line * (size // len(line) + 1))[:size]


@pytest.mark.parametrize("size", [90_000, 150_000])
async def test_a_large_host_result_reaches_the_model_as_the_stream_shows_it(scripted_model_server, workspace: Path,
                                                                            size: int) -> None:
    big = define_harness_tool(name="big", description="d", input={"type": "object"},
                              execute=lambda v, c: text_of(size))
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("big", {}, id="b1")]), "read it"))
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False, tools=[big],
                         harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                          "api_key": "test-key", "max_retries": 0})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
    [part] = [p for p in result.parts if p.type in ("tool-result", "tool-error")]
    sent = server.last_tool_result() or ""
    assert part.type == "tool-result" and sent == part.output
    if size <= 100_000:
        assert sent == text_of(size)
    else:
        assert sent.endswith(f"[output truncated: {size - 100_000} of {size} characters omitted]")
        assert len(sent) == 100_000 + len(f"\n\n[output truncated: {size - 100_000} of {size} characters omitted]")
