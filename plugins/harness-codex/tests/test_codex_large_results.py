"""Codex gets a large host-tool result as the stream shows it (issue 16, item 11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness_core import HarnessAgent, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


def text_of(size: int) -> str:
    line = "0123456789 abcdefghij ABCDEFGHIJ klmnopqrst KLMNOPQRST uvwxyz UVWXYZ .,;:!?\n"
    return (line * (size // len(line) + 1))[:size]


async def test_a_large_host_result_reaches_the_model_as_the_stream_shows_it(
        make_agent: Callable[..., HarnessAgent]) -> None:
    big = define_harness_tool(name="big", description="d", input={"type": "object"},
                              execute=lambda v, c: text_of(150_000))
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("big", {}, id="b-1")]), "read it")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[big])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="go")
        finally:
            await session.destroy()
        second = [r for r in server.requests if r.is_model_call][-1]
    [part] = [p for p in result.parts if p.type in ("tool-result", "tool-error") and p.tool_call_id == "b-1"]
    [output] = [i for i in second.body["input"] if i.get("type") == "function_call_output" and i["call_id"] == "b-1"]
    sent: Any = output["output"]
    text = sent if isinstance(sent, str) else "".join(item.get("text", "") for item in sent)
    assert part.type == "tool-result"
    assert text == part.output
    assert len(text) == 100_000 + len("\n\n[output truncated: 50000 of 150000 characters omitted]")
