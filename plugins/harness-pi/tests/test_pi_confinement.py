"""Issue 16: allow-edits never covers a pi built-in whose path leads outside the workspace.

pi's ``write`` through a link inside the workspace that resolves outside must be asked (the
core's permission-mode policy resolves the path as the OS would); an inside write still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
async def test_write_through_a_link_leading_outside_asks(pi_agent: PiAgentFactory, workspace: Path,
                                                        tmp_path: Path, spelling: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "jump").symlink_to(outside)
    path = "jump/planted.txt" if spelling == "relative" else str(workspace / "jump" / "planted.txt")
    script = [ModelTurn(tool_calls=[ToolCallSpec("write", {"path": path, "content": "escaped"}, id="w1")]),
              "Written."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-edits")
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="Write it")
            assert result.finish_reason == "awaiting-approval", (result.finish_reason, result.error)
            assert [r.tool_call.tool_name for r in result.approval_requests] == ["write"]
            assert not (outside / "planted.txt").exists()


async def test_write_inside_runs_without_asking(pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "inside.txt", "content": "ok"}, id="w1")]),
              "Written."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-edits")
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="Write it")
    assert result.finish_reason == "stop", result.error
    assert (workspace / "inside.txt").read_text() == "ok"
