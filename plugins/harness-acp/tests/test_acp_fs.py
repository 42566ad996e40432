"""fs/read_text_file and fs/write_text_file served from the session sandbox, confined.

Driven over a real ACP connection to a real agent process (``fs_agent.py``, built on the
SDK's agent side): neither codex-acp nor pi-acp asks its client for files.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from harness_acp import acp

from harness_core import (
    FILE_CHANGE_TOOL,
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessAgent,
    LocalSandbox,
    ToolCall,
    ToolCallPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    hookimpl,
)
from harness_core.testing.conformance import check_stream_shape

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("acp")]

AGENT = [sys.executable, str(Path(__file__).with_name("fs_agent.py"))]


async def _run(workspace: Path, operations: list[dict[str, str]], **agent_kwargs: Any) -> tuple[str, list[object]]:
    agent = HarnessAgent(harness=acp(command=AGENT, name="fs-agent"), **agent_kwargs)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt=json.dumps(operations))
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop", result.error
    return result.all_text, list(result.parts)


async def test_reads_and_writes_inside_the_workspace_and_reports_file_changes(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\nthree\n")
    text, parts = await _run(workspace, [
        {"op": "read", "path": str(workspace / "notes.txt")},
        {"op": "ask-write", "path": str(workspace / "sub" / "new.txt"), "content": "fresh"},
        {"op": "ask-write", "path": str(workspace / "notes.txt"), "content": "changed"},
    ])
    assert "READ:one\ntwo\nthree" in text
    assert (workspace / "sub" / "new.txt").read_text() == "fresh"
    assert (workspace / "notes.txt").read_text() == "changed"
    changes = [p for p in parts if isinstance(p, ToolResultPart) and p.tool_name == FILE_CHANGE_TOOL]
    assert [c.output for c in changes] == [  # display paths, relative to the workspace
        {"changes": [{"path": "sub/new.txt", "kind": "created"}]},
        {"changes": [{"path": "notes.txt", "kind": "modified"}]},
    ]
    calls = [p for p in parts if isinstance(p, ToolCallPart) and p.tool_name == FILE_CHANGE_TOOL]
    assert all(c.provider_executed and c.dynamic for c in calls) and len(calls) == 2


async def test_dotdot_absolute_and_symlink_escapes_are_refused(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    os.symlink(outside, workspace / "link")
    os.symlink(outside / "secret.txt", workspace / "file-link")
    text, parts = await _run(workspace, [
        {"op": "read", "path": str(workspace / ".." / "outside" / "secret.txt")},
        {"op": "read", "path": str(outside / "secret.txt")},
        {"op": "read", "path": str(workspace / "link" / "secret.txt")},
        {"op": "read", "path": str(workspace / "file-link")},
        {"op": "write", "path": str(workspace / "link" / "planted.txt"), "content": "x"},
        {"op": "write", "path": str(workspace / ".." / "outside" / "planted.txt"), "content": "x"},
        {"op": "write", "path": str(workspace / "file-link"), "content": "overwritten"},
    ])
    lines = [line for line in text.splitlines() if line]
    assert len(lines) == 7 and all(line.startswith("REFUSED:") for line in lines), lines
    assert "SECRET" not in text
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "SECRET"
    assert not [p for p in parts if isinstance(p, ToolCallPart) and p.tool_name == FILE_CHANGE_TOOL]


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


class _DenyAll:
    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        return ApprovalDecision(ApprovalStatus.DENIED, "nothing runs") if call.provider_executed else None


async def test_an_unasked_write_is_refused_under_approvals(workspace: Path) -> None:
    """Bypass: with approvals on (a deny-all policy) ``fs/write_text_file`` wrote the file
    without any ``session/request_permission``: the core never decided it."""
    text, parts = await _run(workspace, [
        {"op": "write", "path": str(workspace / "canary.txt"), "content": "x"},
        {"op": "ask-write", "path": str(workspace / "asked.txt"), "content": "x"},
    ], permission_mode="allow-reads", plugins=[_DenyAll()])
    lines = [line for line in text.splitlines() if line]
    assert len(lines) == 2 and all(line.startswith("REFUSED:") for line in lines), lines
    assert _names(workspace) == []
    assert [p.tool_call_id for p in parts if isinstance(p, ToolOutputDeniedPart)] == ["edit-1"]


async def test_an_approved_edit_may_write_its_location_only(workspace: Path) -> None:
    text, _ = await _run(workspace, [
        {"op": "ask-write", "path": str(workspace / "asked.txt"), "content": "ok"},
        {"op": "write", "path": str(workspace / "other.txt"), "content": "x"},
    ], permission_mode="allow-edits")
    lines = [line for line in text.splitlines() if line]
    assert lines[0] == f"WROTE:{workspace / 'asked.txt'}" and lines[1].startswith("REFUSED:"), lines
    assert _names(workspace) == ["asked.txt"]
