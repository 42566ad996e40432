"""Built-in approvals through Claude Code's permission callback, and permission modes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ToolUseBlock
from harness_claude_code import ClaudeCodeEvent, claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import BuiltinApprovalRequest, PermissionMode, PromptRequest, StartRequest
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


def _approvals(log: Any) -> list[BuiltinApprovalRequest]:
    return [e for e in log.events if isinstance(e, BuiltinApprovalRequest)]


async def test_every_builtin_call_is_asked_and_denial_reaches_the_model(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    blocked = workspace / "blocked.txt"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": str(workspace / "a.txt")})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(blocked), "content": "no"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo ran > ran.txt"})]),
        "Finished.",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(
        session_id="s-approve", permission_mode=PermissionMode.ALLOW_READS, builtin_approvals=True,
    ))

    def decide(request: BuiltinApprovalRequest) -> Any:
        return (False, "Writing is not allowed here.") if request.call.tool_name == "write" else True

    try:
        log = await driver(await session.prompt(PromptRequest(prompt="go")), approve=decide)
    finally:
        await session.destroy()
    requests = _approvals(log)
    assert [r.call.tool_name for r in requests] == ["read", "write", "bash"]
    assert all(r.call.provider_executed for r in requests)
    assert [r.call.provider_metadata["claude-code"]["nativeToolName"] for r in requests] == ["Read", "Write", "Bash"]
    assert requests[1].call.input == {"file_path": str(blocked), "content": "no"}
    assert requests[1].approval_id == f"approval-{requests[1].call.tool_call_id}"
    assert not blocked.exists()
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert log.of_type("tool-output-denied") == [], "the core emits the denial of a call it was asked about"
    assert log.of_type("tool-call") == [], "the core emits the call part of a call it was asked about"
    assert [r.tool_name for r in log.of_type("tool-result")] == ["read", "bash"]
    sent = [r for r in server.model_requests if not r.is_side_request]
    denial = next(t for t in sent[2].tool_results if t.call_id == requests[1].call.tool_call_id)
    assert denial.is_error and "Writing is not allowed here." in denial.text
    assert log.end is not None and log.end.finish_reason == "stop"


async def test_the_assistant_message_precedes_the_approval_request_of_its_call(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "true"})]), "ok"])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-order", builtin_approvals=True))
    try:
        log = await driver(await session.prompt(PromptRequest(prompt="go")), approve=lambda request: True)
    finally:
        await session.destroy()
    kinds = []
    for event in log.events:
        if isinstance(event, BuiltinApprovalRequest):
            kinds.append("approval")
        elif isinstance(event, ClaudeCodeEvent) and isinstance(event.message, AssistantMessage):
            kinds += ["tool-use" for block in event.message.content if isinstance(block, ToolUseBlock)]
    assert kinds == ["tool-use", "approval"]


async def test_allow_all_without_approvals_runs_without_prompts(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "x.txt"), "content": "x"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo y > y.txt"})]),
        "done",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-bypass", permission_mode=PermissionMode.ALLOW_ALL))
    try:
        log = await driver(await session.prompt(PromptRequest(prompt="go")), approve=lambda r: pytest.fail("asked"))
    finally:
        await session.destroy()
    assert _approvals(log) == []
    assert (workspace / "x.txt").read_text() == "x" and (workspace / "y.txt").exists()
