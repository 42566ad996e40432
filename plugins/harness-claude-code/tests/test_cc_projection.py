"""Unit tests of the projection of Claude Code's SDK messages (no runtime)."""

from __future__ import annotations

from typing import Any

from harness_claude_code import ClaudeCodeEvent, TurnView
from harness_claude_code._anthropic import usage_from
from harness_claude_code._identity import identify_tool
from harness_claude_code._projection import project

from harness_core import (
    ProjectionContext,
    RawPart,
    ToolCallPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)


def _context() -> ProjectionContext:
    return ProjectionContext(harness_id="claude-code")


def test_identify_tool() -> None:
    assert identify_tool("Bash").tool_name == "bash" and identify_tool("Bash").native_tool_name == "Bash"
    assert identify_tool("WebFetch").native_tool_name is None and not identify_tool("WebFetch").dynamic
    host = identify_tool("mcp__harness__weather")
    assert (host.tool_name, host.host, host.native_tool_name) == ("weather", True, "mcp__harness__weather")
    other = identify_tool("mcp__ext__shout")
    assert (other.tool_name, other.dynamic, other.host) == ("mcp__ext__shout", True, False)
    assert identify_tool("Agent").tool_name == "Task"


def test_projection_of_messages_without_stream_events() -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    context, view = _context(), TurnView()
    view.denied["t3"] = "no writes"
    ro = view.readonly()
    assistant = AssistantMessage(content=[
        TextBlock("Looking."), ToolUseBlock("t1", "Bash", {"command": "ls"}),
        ToolUseBlock("t2", "Monitor", {"x": 1}), ToolUseBlock("t3", "Write", {"file_path": "a"}),
        ToolUseBlock("t4", "mcp__harness__weather", {"city": "Oslo"}),
    ], model="m", message_id="msg_1")
    parts: list[Any] = project(ClaudeCodeEvent(assistant, ro), context)
    assert [p.type for p in parts] == ["text-start", "text-delta", "text-end", "tool-call", "tool-call", "tool-call"]
    bash, monitor = parts[3], parts[4]
    assert bash.tool_name == "bash" and bash.provider_metadata == {"claude-code": {"nativeToolName": "Bash"}}
    assert monitor.tool_name == "Monitor" and monitor.dynamic and monitor.provider_executed
    results = UserMessage(content=[
        ToolResultBlock("t1", "a.txt", False), ToolResultBlock("t2", "<tool_use_error>boom</tool_use_error>", True),
        ToolResultBlock("t3", "no writes", True), ToolResultBlock("t4", "Input validation error", True),
    ])
    out: list[Any] = project(ClaudeCodeEvent(results, ro), context)
    # t3 was denied by the host: the core emitted its tool-output-denied, the adapter adds nothing.
    assert [p.type for p in out] == ["tool-result", "tool-error", "tool-call", "tool-error"]
    assert out[1].error == "boom"
    assert out[2].invalid and out[2].tool_name == "weather" and not out[2].provider_executed


def test_projection_of_stream_events_and_usage() -> None:
    from claude_agent_sdk import AssistantMessage, StreamEvent, TextBlock, ToolUseBlock

    context = _context()

    def event(payload: dict[str, Any]) -> ClaudeCodeEvent:
        return ClaudeCodeEvent(StreamEvent(uuid="u", session_id="s", event=payload))

    sequence: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_9", "usage": {"input_tokens": 10, "cache_read_input_tokens": 4}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "t1", "name": "Read"}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
    parts: list[Any] = [p for payload in sequence for p in project(event(payload), context)]
    assert [p.type for p in parts] == [
        "start-step", "reasoning-start", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-end",
        "tool-input-start", "tool-input-delta", "tool-input-end", "finish-step",
    ]
    assert parts[7].tool_name == "read" and parts[7].provider_executed
    finish = parts[-1]
    assert finish.finish_reason == "tool-calls"
    assert (finish.usage.input_tokens, finish.usage.output_tokens, finish.usage.cached_input_tokens) == (10, 5, 4)
    again = AssistantMessage(content=[TextBlock("Hi")], model="m", message_id="msg_9")
    assert project(ClaudeCodeEvent(again), context) == [], "streamed text is not repeated"
    # Claude Code sends the complete call before the block's content_block_stop.
    early = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t5", "name": "Bash"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
    ]
    late_context = _context()
    kinds = [p.type for payload in early for p in project(event(payload), late_context)]
    call = AssistantMessage(content=[ToolUseBlock("t5", "Bash", {})], model="m", message_id="msg_x")
    kinds += [p.type for p in project(ClaudeCodeEvent(call), late_context)]
    kinds += [p.type for p in project(event({"type": "content_block_stop", "index": 0}), late_context)]
    assert kinds == ["tool-input-start", "tool-input-delta", "tool-input-end", "tool-call"]
    usage = usage_from({"input_tokens": 3, "output_tokens": 4, "output_tokens_details": {"thinking_tokens": 2}},
                       cost_usd=0.5)
    assert (usage.total_tokens, usage.reasoning_tokens, usage.cost_usd) == (7, 2, 0.5)


def test_projection_of_system_messages() -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        SystemMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    context = _context()
    boundary = SystemMessage("compact_boundary", {"uuid": "b1", "compact_metadata": {
        "trigger": "manual", "pre_tokens": 900, "post_tokens": 120}})
    call, result = project(ClaudeCodeEvent(boundary), context)
    assert isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart)
    assert call.tool_name == "compaction" and call.dynamic and call.provider_executed
    assert result.output == {"trigger": "manual", "preTokens": 900, "postTokens": 120}
    assert project(ClaudeCodeEvent(SystemMessage("status", {})), context) == []
    [raw] = project(ClaudeCodeEvent(SystemMessage("api_retry", {"attempt": 1})), context)
    assert isinstance(raw, RawPart) and raw.type == "raw" and raw.raw_value["data"] == {"attempt": 1}
    # Claude Code refusing a call by its own rules: the result becomes tool-output-denied.
    refused_call = AssistantMessage(content=[ToolUseBlock("t9", "Bash", {"command": "rm -rf /"})], model="m")
    project(ClaudeCodeEvent(refused_call), context)
    refused = SystemMessage("permission_denied", {"tool_name": "Bash", "tool_use_id": "t9", "message": "blocked"})
    assert project(ClaudeCodeEvent(refused), context) == []
    [denied] = project(ClaudeCodeEvent(UserMessage(content=[ToolResultBlock("t9", "blocked", True)])), context)
    assert isinstance(denied, ToolOutputDeniedPart) and (denied.tool_name, denied.reason) == ("bash", "blocked")
    error = AssistantMessage(content=[TextBlock("API Error: 500")], model="<synthetic>", error="server_error")
    assert project(ClaudeCodeEvent(error), context) == [], "the TurnEnd carries API errors"
