"""pi gets a large host-tool result as the stream shows it (issue 16, item 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core import LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]


def text_of(size: int) -> str:
    line = "0123456789 abcdefghij ABCDEFGHIJ klmnopqrst KLMNOPQRST uvwxyz UVWXYZ .,;:!?\n"
    return (line * (size // len(line) + 1))[:size]


async def test_a_large_host_result_reaches_the_model_as_the_stream_shows_it(pi_agent: PiAgentFactory,
                                                                            workspace: Path) -> None:
    big = define_harness_tool(name="big", description="d", input={"type": "object"},
                              execute=lambda v, c: text_of(150_000))
    script = [ModelTurn(tool_calls=[ToolCallSpec("big", {}, id="b-1")]), "read it"]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, tools=[big])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
        sent = server.last_tool_result() or ""
    [part] = [p for p in result.parts if p.type in ("tool-result", "tool-error") and p.tool_call_id == "b-1"]
    assert part.type == "tool-result"
    assert sent == part.output
    assert len(sent) == 100_000 + len("\n\n[output truncated: 50000 of 150000 characters omitted]")
