"""Permission modes on the real Codex CLI: which built-in calls ask, approve, deny, pause."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, ToolCallPart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

PATCH = "*** Begin Patch\n*** Add File: added.txt\n+added by patch\n*** End Patch\n"
UPDATE = "*** Begin Patch\n*** Update File: added.txt\n@@\n-added by patch\n+updated by patch\n*** End Patch\n"


def _script() -> Script:
    return Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "ls"}, id="c-ls")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo hi > shell.txt"}, id="c-write")]),
        ModelTurn(tool_calls=[ToolCallSpec("apply_patch", PATCH, id="c-patch")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo again >> shell.txt"}, id="c-again")]),
        ModelTurn(tool_calls=[ToolCallSpec("apply_patch", UPDATE, id="c-update")]),
        "all done",
    )


async def _run_all_approved(agent: HarnessAgent) -> tuple[list[str], list[Any]]:
    """Generate, approving every request; the tool names asked and all parts."""
    session = await agent.create_session()
    asked: list[str] = []
    parts: list[Any] = []
    try:
        result = await agent.generate(session=session, prompt="go")
        parts += result.parts
        while result.finish_reason == "awaiting-approval":
            asked += [r.tool_call.tool_name for r in result.approval_requests]
            result = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": r.approval_id, "approved": True} for r in result.approval_requests])
            parts += result.parts
        assert result.finish_reason == "stop", result.error
    finally:
        await session.destroy()
    return asked, parts


@pytest.mark.parametrize(("mode", "expected"), [
    ("allow-reads", ["bash", "bash", "write", "bash", "edit"]),
    ("allow-edits", ["bash", "bash", "bash"]),
    ("allow-all", []),
])
async def test_which_calls_ask(mode: str, expected: list[str], make_agent: Callable[..., HarnessAgent],
                               workspace: Path) -> None:
    """allow-reads asks before every command (even ``ls``) and edit; allow-edits before every command."""
    with ScriptedModelServer(_script()) as server:
        asked, parts = await _run_all_approved(make_agent(server, permission_mode=mode))
    assert asked == expected
    assert (workspace / "shell.txt").read_text() == "hi\nagain\n"
    assert (workspace / "added.txt").read_text() == "updated by patch\n"
    calls = {p.tool_call_id: p for p in parts if isinstance(p, ToolCallPart)}
    assert calls["c-ls"].tool_name == "bash" and calls["c-ls"].provider_executed
    assert calls["c-ls"].provider_metadata == {"codex": {"nativeToolName": "exec_command"}}
    assert calls["c-ls"].input["command"] == "ls"
    assert calls["c-patch"].tool_name == "write"
    assert calls["c-patch"].provider_metadata == {"codex": {"nativeToolName": "apply_patch"}}
    finals = [p.tool_call_id for p in parts if isinstance(p, ToolResultPart) and p.provider_executed]
    assert {"c-ls", "c-write", "c-patch", "c-again", "c-update"} <= set(finals)
    assert calls["c-update"].tool_name == "edit"
    changes = [p for p in parts if isinstance(p, ToolCallPart) and p.tool_name == "fileChange"]
    assert [(c.input["toolCallId"], [(f["path"], f["kind"]) for f in c.input["changes"]]) for c in changes] == [
        ("c-patch", [("added.txt", "created")]),  # shown relative to the session's workspace_root
        ("c-update", [("added.txt", "modified")])]


async def test_denial_never_runs_and_reason_reaches_the_model(make_agent: Callable[..., HarnessAgent],
                                                              workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo no > denied.txt"}, id="c-deny")]),
        ModelTurn(tool_calls=[ToolCallSpec("apply_patch", PATCH, id="c-patch")]),
        "after",
    )
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, permission_mode="allow-reads")
        session = await agent.create_session()
        try:
            first = await agent.generate(session=session, prompt="go")
            (request,) = first.approval_requests
            assert request.tool_call.input["command"] == "echo no > denied.txt"
            second = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": False, "reason": "no shell writes today"}])
            (patch,) = second.approval_requests
            third = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": patch.approval_id, "approved": False, "reason": "no patches"}])
        finally:
            await session.destroy()
        bodies = [str(r.body) for r in server.requests if r.is_model_call]
    assert third.finish_reason == "stop", third.error
    assert not (workspace / "denied.txt").exists() and not (workspace / "added.txt").exists()
    denied = [p for p in [*second.parts, *third.parts] if isinstance(p, ToolOutputDeniedPart)]
    assert [(d.tool_call_id, d.reason) for d in denied] == [("c-deny", "no shell writes today"),
                                                           ("c-patch", "no patches")]
    assert any("no shell writes today" in body for body in bodies[1:]), "the denial reason did not reach the model"


async def test_inactive_builtin_is_denied_without_approval_parts(make_agent: Callable[..., HarnessAgent],
                                                                 workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo x > f.txt"}, id="c-f")]), "ok")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, inactive_tools=["bash"])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="go")
        finally:
            await session.destroy()
    assert result.finish_reason == "stop", result.error
    assert not (workspace / "f.txt").exists()
    assert not result.approval_requests
    assert not [p for p in result.parts if p.type in ("tool-approval-request", "tool-approval-response")]
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "bash"


async def test_an_approved_patch_continued_after_suspend_is_not_run_and_the_model_is_told(
        make_agent: Callable[..., HarnessAgent], workspace: Path) -> None:
    from harness_codex import NOT_RUN

    from harness_core import ToolErrorPart

    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("apply_patch", PATCH, id="c-patch")]), "understood")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, permission_mode="allow-reads")
        session = await agent.create_session()
        first = await agent.generate(session=session, prompt="patch it")
        (request,) = first.approval_requests
        state = await session.suspend_turn()
        await session.destroy()
        again = await agent.create_session(continue_from=state)
        try:
            result = await agent.continue_generate(session=again, approval_responses=[
                {"approval_id": request.approval_id, "approved": True}])
        finally:
            await again.destroy()
        last = [r for r in server.requests if r.is_model_call][-1]
    assert result.finish_reason == "stop", result.error
    assert not (workspace / "added.txt").exists()
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart) and p.tool_call_id == "c-patch"]
    assert error.error == NOT_RUN
    assert NOT_RUN in str(last.body)
