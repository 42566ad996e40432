"""harness-rules decides Codex calls by their resources (command, patch paths), as on every harness."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness_rules import RulesPolicy

from harness_core import HarnessAgent, ToolErrorPart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

ENV_PATCH = "*** Begin Patch\n*** Add File: .env\n+SECRET=1\n*** End Patch\n"


async def test_rules_allow_and_deny_codex_calls(make_agent: Callable[..., HarnessAgent], workspace: Path) -> None:
    (workspace / "keep.txt").write_text("keep\n")
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "git status"}, id="c-status")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "rm keep.txt"}, id="c-rm")]),
        ModelTurn(tool_calls=[ToolCallSpec("apply_patch", ENV_PATCH, id="c-env")]),
        "done",
    )
    policy = RulesPolicy({"allow": ["bash(git status)"], "deny": ["bash(rm *)", "edit(./.env)"]}, cwd=str(workspace))
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, permission_mode="allow-reads", plugins=[policy])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="go")
        finally:
            await session.destroy()
    assert result.finish_reason == "stop", result.error
    assert not result.approval_requests, "allowed and denied calls need no person"
    assert (workspace / "keep.txt").exists() and not (workspace / ".env").exists()
    denied = {p.tool_call_id for p in result.parts if isinstance(p, ToolOutputDeniedPart)}
    assert denied == {"c-rm", "c-env"}
    ran = {p.tool_call_id for p in result.parts if isinstance(p, ToolResultPart | ToolErrorPart)}
    assert "c-status" in ran  # it ran (outside a git repository it exits 128, a tool-error)
