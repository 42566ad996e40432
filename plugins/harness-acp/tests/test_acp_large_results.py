"""codex-acp gets a large host-tool result as the stream shows it (issue 16, item 11): Codex
would cut it to about 10,000 tokens out of the middle; the profile raises
``tool_output_token_limit`` so the core's 100,000-character cut reaches the model whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex-acp", "acp")]


def text_of(size: int) -> str:
    line = "0123456789 abcdefghij ABCDEFGHIJ klmnopqrst KLMNOPQRST uvwxyz UVWXYZ .,;:!?\n"
    return (line * (size // len(line) + 1))[:size]


async def test_a_large_host_result_reaches_the_model_as_the_stream_shows_it(codex_acp: Any, workspace: Path) -> None:
    big = define_harness_tool(name="big", description="d", input={"type": "object"},
                              execute=lambda v, c: text_of(150_000))
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__big", {}, id="b-1")]), "ok"]
    with ScriptedModelServer(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), tools=[big], include_plugin_tools=False)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
        second = [r for r in server.requests if r.is_model_call][-1]
    [part] = [p for p in result.parts if p.type in ("tool-result", "tool-error") and p.tool_call_id == "b-1"]
    assert part.type == "tool-result"
    [output] = [i for i in second.body["input"] if i.get("type") == "function_call_output" and i["call_id"] == "b-1"]
    sent = output["output"]
    assert isinstance(sent, str)
    # Codex sends an MCP result as "Wall time: ...\nOutput:\n" and its JSON content items.
    head, _, items = sent.partition("Output:\n")
    assert head.startswith("Wall time:")
    text = "".join(item.get("text", "") for item in json.loads(items))
    assert text == part.output
    assert len(text) == 100_000 + len("\n\n[output truncated: 50000 of 150000 characters omitted]")
