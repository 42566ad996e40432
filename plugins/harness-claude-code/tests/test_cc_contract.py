"""The adapter contract, part by part: who emits the parts of a built-in call under approvals.

For a call the adapter sends to the core as a ``BuiltinApprovalRequest`` the core emits
``tool-call``, the approval parts and ``tool-output-denied``; the adapter emits only the
call's streamed input and, when it ran, its final result. A call Claude Code decides on its
own (the core never hears of it) is projected by the adapter: ``tool-call``, then its
result or denial. These tests drive the adapter turn directly (no core) and read the
adapter's own stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from harness_claude_code import ClaudeCodeEvent, TurnView, claude_code
from harness_claude_code._projection import project
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import (
    BuiltinApprovalRequest,
    BuiltinFilter,
    BuiltinFilterMode,
    Part,
    ProjectionContext,
    PromptRequest,
    StartRequest,
)
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

_CALL_PARTS = ("tool-call", "tool-approval-request", "tool-approval-response", "tool-output-denied")
_FINAL = ("tool-result", "tool-error", "tool-output-denied")


def _call_id(item: object) -> str | None:
    if isinstance(item, BuiltinApprovalRequest):
        return item.call.tool_call_id
    if isinstance(item, Part):
        value = getattr(item, "tool_call_id", None) or getattr(item, "id", None)
        return value if isinstance(value, str) else None
    return None


def _kinds(timeline: list[object], call_id: str) -> list[str]:
    """The adapter's stream for one call: part types and ``approval`` for its request."""
    return ["approval" if isinstance(item, BuiltinApprovalRequest) else item.type  # type: ignore[attr-defined]
            for item in timeline if _call_id(item) == call_id]


@needs_cli
@pytest.mark.anyio
async def test_asked_builtin_calls_get_no_call_part_from_the_adapter(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": str(workspace / "a.txt")}, id="toolu_read")]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "no.txt"), "content": "no"},
                                           id="toolu_denied")]),
        # Edit is filtered out: Claude Code refuses the call itself, without asking.
        ModelTurn(tool_calls=[ToolCallSpec("Edit", {"file_path": str(workspace / "a.txt"), "old_string": "a",
                                                    "new_string": "b"}, id="toolu_refused", unoffered=True)]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "b.txt"), "content": "b"},
                                           id="toolu_write")]),
        # Claude Code's own deny rule refuses this one, without asking.
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo no > rule.txt"}, id="toolu_rule")]),
        "Done.",
    ])
    rules = json.dumps({"permissions": {"deny": ["Bash(echo:*)"]}})
    session = await claude_code(**adapter_settings(server, extra_options={"settings": rules})).start(StartRequest(
        session_id="s-contract", builtin_approvals=True,
        builtin_filter=BuiltinFilter(BuiltinFilterMode.ACTIVE, {"read", "write", "bash"}),
    ))

    def decide(request: BuiltinApprovalRequest) -> Any:
        return (False, "No.") if request.call.tool_call_id == "toolu_denied" else True

    try:
        log = await driver(await session.prompt(PromptRequest(prompt="go")), approve=decide)
    finally:
        await session.destroy()
    assert log.end is not None and log.end.finish_reason == "stop"
    assert (workspace / "b.txt").read_text() == "b" and not (workspace / "no.txt").exists()
    timeline = log.timeline
    for asked in ("toolu_read", "toolu_write"):
        kinds = _kinds(timeline, asked)
        assert "approval" in kinds, kinds
        assert not set(kinds) & set(_CALL_PARTS), f"{asked}: the adapter emitted a part the core owns: {kinds}"
        assert kinds[kinds.index("approval"):] == ["approval", "tool-result"], kinds
        streamed = kinds[: kinds.index("approval")]
        assert streamed[0] == "tool-input-start" and streamed[-1] == "tool-input-end", kinds
        assert set(streamed[1:-1]) <= {"tool-input-delta"}, kinds
    denied = _kinds(timeline, "toolu_denied")
    assert "approval" in denied and not set(denied) & set(_CALL_PARTS) and not set(denied) & set(_FINAL), denied
    refused = _kinds(timeline, "toolu_refused")
    assert "approval" not in refused, refused
    assert refused[-2:] == ["tool-call", "tool-error"], "a call the core never saw: the adapter projects it"
    [refused_call] = [p for p in log.of_type("tool-call") if p.tool_call_id == "toolu_refused"]
    assert refused_call.tool_name == "edit" and refused_call.provider_executed
    assert refused_call.provider_metadata == {"claude-code": {"nativeToolName": "Edit"}}
    ruled = _kinds(timeline, "toolu_rule")
    assert "approval" not in ruled and ruled[-2:] == ["tool-call", "tool-output-denied"], ruled
    [rule_denial] = [p for p in log.of_type("tool-output-denied") if p.tool_call_id == "toolu_rule"]
    assert rule_denial.provider_executed and "has been denied" in (rule_denial.reason or "")
    assert not (workspace / "rule.txt").exists()
    finals = [_call_id(p) for p in log.parts if p.type in _FINAL]
    assert len(finals) == len(set(finals)), f"more than one final result for a call: {finals}"


# -- the projection under approvals (no runtime) ---------------------------------------------


def _project(view: TurnView, context: ProjectionContext, message: object) -> list[Any]:
    return list(project(ClaudeCodeEvent(message, view.readonly()), context))


def test_withheld_call_parts_follow_what_the_host_was_asked() -> None:
    view, context = TurnView(withhold_calls=True), ProjectionContext(harness_id="claude-code")
    calls = AssistantMessage(content=[
        ToolUseBlock("asked", "Write", {"file_path": "a"}), ToolUseBlock("auto", "Read", {"file_path": "b"}),
        ToolUseBlock("denied", "Bash", {"command": "x"}), ToolUseBlock("refused", "Bash", {"command": "y"}),
    ], model="m", message_id="msg_1")
    assert _project(view, context, calls) == [], "no tool-call part before the host is (or is not) asked"
    view.asked.update({"asked", "denied"})
    view.denied["denied"] = "No."
    assert _project(view, context, SystemMessage("permission_denied", {"tool_use_id": "denied", "message": "No."})) == []
    assert _project(view, context, SystemMessage("permission_denied", {"tool_use_id": "refused", "message": "rule"})) == []
    out = _project(view, context, UserMessage(content=[
        ToolResultBlock("asked", "written", False), ToolResultBlock("auto", "text of b", False),
        ToolResultBlock("denied", "No.", True), ToolResultBlock("refused", "rule", True),
    ]))
    assert [(p.type, p.tool_call_id) for p in out] == [
        ("tool-result", "asked"),
        ("tool-call", "auto"), ("tool-result", "auto"),
        ("tool-call", "refused"), ("tool-output-denied", "refused"),
    ]
    assert all(p.provider_executed for p in out)
    assert out[1].tool_name == "read" and out[1].input == {"file_path": "b"}
    assert out[4].reason == "rule"


def test_subagent_results_are_reported_only_for_calls_the_host_was_asked_about() -> None:
    view, context = TurnView(withhold_calls=True), ProjectionContext(harness_id="claude-code")
    inner = AssistantMessage(content=[ToolUseBlock("sub_asked", "Write", {"file_path": "a"}),
                                      ToolUseBlock("sub_quiet", "TodoWrite", {})],
                             model="m", parent_tool_use_id="toolu_task")
    assert _project(view, context, inner) == []
    view.asked.add("sub_asked")
    out = _project(view, context, UserMessage(content=[ToolResultBlock("sub_asked", "ok", False),
                                                       ToolResultBlock("sub_quiet", "ok", False)],
                                              parent_tool_use_id="toolu_task"))
    assert [(p.type, p.tool_call_id) for p in out] == [("tool-result", "sub_asked")]


def test_without_approvals_the_call_part_comes_with_the_assistant_message() -> None:
    view, context = TurnView(withhold_calls=False), ProjectionContext(harness_id="claude-code")
    out = _project(view, context, AssistantMessage(content=[ToolUseBlock("t1", "Bash", {"command": "ls"})], model="m"))
    assert [(p.type, p.tool_call_id) for p in out] == [("tool-call", "t1")]
    out = _project(view, context, UserMessage(content=[ToolResultBlock("t1", "a.txt", False)]))
    assert [(p.type, p.tool_call_id) for p in out] == [("tool-result", "t1")]


def test_a_permission_request_without_a_call_id_is_matched_to_its_announced_call() -> None:
    from harness_claude_code._calls import CallLedger

    view = TurnView(withhold_calls=True)
    ledger = CallLedger(view, "denied")
    ledger.announced("toolu_1", "Write", {"file_path": "a", "content": "x"})
    ledger.announced("toolu_2", "Write", {"file_path": "b", "content": "y"})
    assert ledger.resolve(None, "Write", {"content": "y", "file_path": "b"}) == "toolu_2"
    ledger.asked("toolu_2", "builtin", "Write", None, {"file_path": "b", "content": "y"}, "approval-toolu_2")
    assert ledger.resolve(None, "Write", {"file_path": "b", "content": "y"}) is None, "already asked"
    assert ledger.resolve("toolu_9", "Write", {}) == "toolu_9"
    assert view.readonly().was_asked("toolu_2") and not view.readonly().was_asked("toolu_1")


class _Owner:
    """A session stand-in for a turn that never starts a process."""

    def note_claude_session(self, claude_session_id: str) -> None:
        pass

    def turn_cost(self, total_cost_usd: float | None) -> float | None:
        return total_cost_usd

    def runtime_failed(self, error: BaseException | None) -> str:
        return f"failed: {error}"

    async def abort_runtime(self) -> None:
        pass


@pytest.mark.anyio
async def test_a_call_the_adapter_refuses_itself_is_a_denial_after_its_call_part() -> None:
    from claude_agent_sdk import PermissionResultDeny, ToolPermissionContext
    from harness_claude_code._callbacks import RuntimeCallbacks
    from harness_claude_code._turn import ClaudeCodeTurn

    turn = ClaudeCodeTurn(_Owner(), "prompt", withhold_calls=True)
    callbacks = RuntimeCallbacks(lambda: turn, BuiltinFilter(BuiltinFilterMode.ACTIVE, {"read"}))
    context = ProjectionContext(harness_id="claude-code")
    call = AssistantMessage(content=[ToolUseBlock("t1", "Write", {"file_path": "a", "content": "x"})], model="m")
    assert _project(turn.view, context, call) == []
    answer = await callbacks.can_use_tool("Write", {"file_path": "a", "content": "x"},
                                          ToolPermissionContext(tool_use_id="t1"))
    assert isinstance(answer, PermissionResultDeny) and "not active" in answer.message
    assert not turn.waiting, "the host was not asked"
    out = _project(turn.view, context, UserMessage(content=[ToolResultBlock("t1", answer.message, True)]))
    assert [(p.type, p.tool_call_id) for p in out] == [("tool-call", "t1"), ("tool-output-denied", "t1")]
    assert out[1].reason == answer.message


def test_calls_a_continued_turn_did_not_repeat_end_only_when_the_core_knows_no_result() -> None:
    from harness_claude_code._calls import NOT_REPEATED, CallLedger
    from harness_claude_code._state import ApprovalAnswer, PendingCall

    view = TurnView(withhold_calls=True)
    ledger = CallLedger(view, "denied")
    ledger.arm_replay({
        "approved": PendingCall(kind="builtin", native_name="Write", input={}, asked=True,
                                answer=ApprovalAnswer(approved=True)),
        "denied": PendingCall(kind="builtin", native_name="Bash", input={}, asked=True,
                              answer=ApprovalAnswer(approved=False, reason="no")),
        "unasked": PendingCall(kind="builtin", native_name="Read", input={}),
        "host": PendingCall(kind="host", native_name="mcp__harness__pick", tool_name="pick", asked=True),
    })
    [part] = ledger.unrepeated_parts()
    assert (part.type, part.tool_call_id, part.error, part.provider_executed) == (
        "tool-error", "approved", NOT_REPEATED, True)
    assert not view.replaying


@pytest.mark.anyio
async def test_plan_mode_decides_host_tools_by_their_read_only_flag() -> None:
    # the built-in harness's plan-mode rule: read-only host tools run, others are refused
    # (fail closed, even if one reached the CLI), MCP tools by their readOnlyHint
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext
    from harness_claude_code._callbacks import RuntimeCallbacks
    from harness_claude_code._turn import ClaudeCodeTurn

    from harness_core import BuiltinTool, ToolKind

    turn = ClaudeCodeTurn(_Owner(), "prompt")
    declared = {"mcp__docs__search": BuiltinTool(name="mcp__docs__search", native_name="mcp__docs__search",
                                                 kind=ToolKind.READ_ONLY)}
    plan = [True]
    callbacks = RuntimeCallbacks(lambda: turn, None, plan_mode=lambda: plan[0], bypass=True,
                                 read_only_host_tools=lambda: frozenset({"ping"}), mcp_declaration=declared.get)
    hook = await callbacks.pre_tool_use({"tool_name": "mcp__harness__ping"}, "t1", None)
    assert hook["hookSpecificOutput"]["permissionDecision"] == "allow"
    hook = await callbacks.pre_tool_use({"tool_name": "mcp__harness__poke"}, "t2", None)
    assert hook["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "Plan mode" in hook["hookSpecificOutput"]["permissionDecisionReason"]
    poke = await callbacks.can_use_tool("mcp__harness__poke", {}, ToolPermissionContext(tool_use_id="t2"))
    assert isinstance(poke, PermissionResultDeny) and "Plan mode" in poke.message
    ping = await callbacks.can_use_tool("mcp__harness__ping", {}, ToolPermissionContext(tool_use_id="t1"))
    assert isinstance(ping, PermissionResultAllow)
    search = await callbacks.can_use_tool("mcp__docs__search", {}, ToolPermissionContext(tool_use_id="t3"))
    assert isinstance(search, PermissionResultAllow)
    other = await callbacks.can_use_tool("mcp__docs__write", {}, ToolPermissionContext(tool_use_id="t4"))
    assert isinstance(other, PermissionResultDeny)
    plan[0] = False
    assert await callbacks.pre_tool_use({"tool_name": "mcp__harness__poke"}, "t5", None) == {}


def test_the_steering_ledger_reads_on_until_every_steer_was_taken_in() -> None:
    from types import SimpleNamespace

    from harness_claude_code._steering import SteeringLedger

    from harness_core import TurnEnd, Usage

    ledger = SteeringLedger()
    ledger.sent("s1")
    ledger.sent("s2")
    ledger.not_sent("s2")  # the write failed: nothing to wait for
    assert ledger.another_turn_follows(SimpleNamespace(user_message_uuids=["p"], user_message_uuid="p"))
    ledger.carry(TurnEnd(finish_reason="stop", usage=Usage(output_tokens=3, cost_usd=0.5)))
    assert not ledger.another_turn_follows(SimpleNamespace(user_message_uuids=["s1"], user_message_uuid="s1"))
    end = ledger.total(TurnEnd(finish_reason="stop", usage=Usage(output_tokens=2, cost_usd=0.25)))
    assert (end.usage.output_tokens, end.usage.cost_usd) == (5, 0.75)
    ledger.sent("s3")  # a CLI that lists no uuids: the turn ends at its result, as before
    assert not ledger.another_turn_follows(SimpleNamespace(user_message_uuids=None, user_message_uuid=None))
