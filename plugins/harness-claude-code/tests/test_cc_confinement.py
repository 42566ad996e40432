"""Issue 16 item 7: allow-edits / allow-reads never cover a built-in path outside the workspace.

The real Claude Code CLI writes or reads through a link inside the workspace that resolves
outside it; the core's permission-mode policy (one resolver, ``harness_core.path_in_workspace``)
must ask instead of allowing, and nothing outside is touched before a person answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]


@pytest.fixture
def outside(tmp_path: Path, workspace: Path) -> Path:
    """``<tmp>/outside`` holding ``secret.txt``, linked from ``<workspace>/jump``."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("outside secret")
    (workspace / "jump").symlink_to(path)
    return path


@pytest.mark.parametrize("with_sandbox", [False, True], ids=["cwd", "sandbox"])
async def test_write_through_a_link_leading_outside_asks_under_allow_edits(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, outside: Path, with_sandbox: bool
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "jump" / "planted.txt"),
                                                     "content": "escaped"})]),
        "Written.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), permission_mode="allow-edits")
    sandbox = LocalSandbox(workspace) if with_sandbox else None
    async with await agent.create_session(sandbox=sandbox) as session:
        result = await agent.generate(session=session, prompt="Write it")
        assert result.finish_reason == "awaiting-approval", (result.finish_reason, result.error)
        (request,) = result.approval_requests
        assert request.tool_call.tool_name == "write"
        assert not (outside / "planted.txt").exists()


async def test_inside_write_still_runs_without_asking_under_allow_edits(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, outside: Path
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "inside.txt"), "content": "ok"})]),
        "Written.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), permission_mode="allow-edits")
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="Write it")
    assert result.finish_reason == "stop", result.error
    assert (workspace / "inside.txt").read_text() == "ok"


async def test_read_through_a_link_leading_outside_asks_under_allow_reads(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, outside: Path
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": str(workspace / "jump" / "secret.txt")})]),
        "Read.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), permission_mode="allow-reads")
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="Read it")
        assert result.finish_reason == "awaiting-approval", (result.finish_reason, result.error)
        assert "outside secret" not in str([p.to_json() for p in result.parts])


async def test_dotdot_after_a_link_is_what_claude_code_reads(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, outside: Path
) -> None:
    """Claude Code normalises ``file_path`` as text before it asks and reads (``<ws>/deep/../x``
    becomes ``<ws>/x``), so that read stays inside and runs: the check is on the path the CLI
    will open, which its request carries."""
    (outside / "sub").mkdir()
    (workspace / "deep").symlink_to(outside / "sub")
    (workspace / "secret.txt").write_text("workspace file")
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": f"{workspace}/deep/../secret.txt"})]),
        "Read.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), permission_mode="allow-reads")
    async with await agent.create_session() as session:
        result = await agent.generate(session=session, prompt="Read it")
    assert result.finish_reason == "stop", result.error
    outputs = str([r.output for r in result.all_tool_results])
    assert "workspace file" in outputs and "outside secret" not in outputs
