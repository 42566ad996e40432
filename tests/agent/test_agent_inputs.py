"""Parsing continuation inputs, model messages, and collecting results."""

from __future__ import annotations

import pytest

from harness_core import ApprovalResponse, ToolResultContinuation, TurnState
from harness_core.agent.answers import parse_approval_responses, parse_messages, parse_tool_results
from harness_core.agent.results import collect_parts
from harness_core.parts.models import (
    AbortPart,
    FinishPart,
    FinishStepPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)


def test_tool_result_continuations_accept_objects_and_both_key_styles() -> None:
    parsed = parse_tool_results([
        ToolResultContinuation("a", 1),
        {"tool_call_id": "b", "output": {"x": 1}},
        {"toolCallId": "c", "output": "bad", "isError": True},
    ])
    assert parsed == [ToolResultContinuation("a", 1), ToolResultContinuation("b", {"x": 1}),
                      ToolResultContinuation("c", "bad", True)]
    with pytest.raises(ValueError, match=r"tool_result_continuations\[0\]: 'tool_call_id' must be a non-empty string"):
        parse_tool_results([{"output": 1}])
    with pytest.raises(ValueError, match=r"\[0\]: 'is_error' must be a bool"):
        parse_tool_results([{"tool_call_id": "a", "is_error": "yes"}])
    with pytest.raises(TypeError, match="expected a mapping or ToolResultContinuation"):
        parse_tool_results(["a"])  # type: ignore[list-item]


def test_approval_responses_are_checked() -> None:
    assert parse_approval_responses([{"approvalId": "x", "approved": False, "reason": "r"}]) == [
        ApprovalResponse("x", False, "r")]
    with pytest.raises(ValueError, match=r"approval_responses\[0\]: 'reason' must be a string"):
        parse_approval_responses([{"approval_id": "x", "approved": True, "reason": 3}])


def test_messages_pick_the_trailing_message() -> None:
    assert parse_messages([{"role": "user", "content": "hi"}]).prompt == "hi"
    continuation = parse_messages([
        {"role": "user", "content": "old"},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "a", "output": {"type": "text", "value": "t"}},
            {"type": "tool-result", "toolCallId": "b", "output": {"type": "error-json", "value": {"e": 1}}},
            {"type": "tool-result", "toolCallId": "c",
             "output": {"type": "content", "value": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}},
            {"type": "tool-result", "toolCallId": "d", "output": 5},
            {"type": "tool-approval-response", "approvalId": "ap", "approved": True},
        ]},
    ])
    assert continuation.is_continuation
    assert continuation.tool_results == (ToolResultContinuation("a", "t"), ToolResultContinuation("b", {"e": 1}, True),
                                         ToolResultContinuation("c", "x\ny"), ToolResultContinuation("d", 5))
    assert continuation.approval_responses == (ApprovalResponse("ap", True),)
    with pytest.raises(ValueError, match="messages is empty"):
        parse_messages([])
    with pytest.raises(ValueError, match="must be a list of model messages"):
        parse_messages("hi")
    with pytest.raises(ValueError, match=r"messages\[0\].content\[0\]: expected a 'tool-result' or 'tool-approval-response'"):
        parse_messages([{"role": "tool", "content": [{"type": "text", "text": "x"}]}])
    with pytest.raises(ValueError, match="'approved' must be true or false"):
        parse_messages([{"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "a"}]}])


def test_turn_states() -> None:
    assert [s.value for s in TurnState] == ["idle", "running", "awaiting-approval", "awaiting-tool-result",
                                            "suspended", "stopped"]
    assert TurnState.AWAITING_APPROVAL.paused and not TurnState.SUSPENDED.paused and not TurnState.STOPPED.paused


def test_collect_parts_builds_steps_and_follows_ai_sdk_semantics() -> None:
    usage = Usage(input_tokens=3, output_tokens=2)
    parts = [
        StartPart(), StartStepPart(), TextDeltaPart(id="t", text="a"),
        ToolCallPart(tool_call_id="c", tool_name="x"),
        ToolResultPart(tool_call_id="c", tool_name="x", output=1, preliminary=True),
        ToolResultPart(tool_call_id="c", tool_name="x", output=2),
        FinishStepPart(finish_reason="tool-calls", usage=usage),
        StartStepPart(), TextDeltaPart(id="u", text="b"), FinishStepPart(finish_reason="stop", usage=usage),
        FinishPart(finish_reason="stop", total_usage=usage + usage),
    ]
    result = collect_parts(parts)
    assert result.text == "b" and result.all_text == "ab"
    assert [s.finish_reason for s in result.steps] == ["tool-calls", "stop"]
    assert [r.output for r in result.all_tool_results] == [2]
    assert result.usage.input_tokens == 6 and result.pending_tool_calls == ()
    aborted = collect_parts([StartPart(), StartStepPart(), TextDeltaPart(id="t", text="a"), AbortPart()])
    assert aborted.finish_reason == "aborted" and aborted.all_text == "a"
    paused = collect_parts([StartPart(), StartStepPart(), ToolCallPart(tool_call_id="p", tool_name="pick"),
                            FinishStepPart(finish_reason="awaiting-tool-result"),
                            FinishPart(finish_reason="awaiting-tool-result")])
    assert [c.tool_call_id for c in paused.pending_tool_calls] == ["p"]


def test_a_tool_result_without_output_is_refused_not_lost() -> None:
    v4_shape = [{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "c1", "toolName": "pick", "result": "teal"}]}]
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\].*needs an 'output'.*'result' is now 'output'"):
        parse_messages(v4_shape)
    unknown = [{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "c1", "toolName": "pick", "output": {"type": "bogus", "value": 1}}]}]
    with pytest.raises(ValueError, match=r"content\[0\]\.output: tool-result output type 'bogus'"):
        parse_messages(unknown)
    ok = [{"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "c1", "toolName": "pick", "output": {"type": "text", "value": "teal"}}]}]
    [result] = parse_messages(ok).tool_results
    assert (result.output, result.is_error) == ("teal", False)
