"""The parts -> UI message stream v1 converter, chunk by chunk."""

from __future__ import annotations

import json
from typing import Any

from harness_ui import (
    DONE,
    UI_MESSAGE_STREAM_HEADERS,
    ErrorReport,
    UIStreamConverter,
    encode_chunk,
    map_finish_reason,
)

from harness_core import (
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishStepPart,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolOutput,
    ToolOutputDeniedPart,
    ToolResultContinuation,
    ToolResultPart,
    Usage,
)


def convert(converter: UIStreamConverter, *parts: Any) -> list[dict[str, Any]]:
    return [chunk for part in parts for chunk in converter.convert(part)]


def test_headers_and_framing() -> None:
    assert UI_MESSAGE_STREAM_HEADERS["content-type"] == "text/event-stream"
    assert UI_MESSAGE_STREAM_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
    assert UI_MESSAGE_STREAM_HEADERS["cache-control"] == "no-cache"
    assert UI_MESSAGE_STREAM_HEADERS["x-accel-buffering"] == "no"
    assert encode_chunk({"type": "text-delta", "id": "t", "delta": "é"}) == \
        'data: {"type":"text-delta","id":"t","delta":"é"}\n\n'.encode()
    assert DONE == b"data: [DONE]\n\n"


def test_lifecycle_text_and_reasoning() -> None:
    converter = UIStreamConverter(message_id="m1")
    chunks = convert(
        converter, StartPart(), StartStepPart(), ReasoningStartPart(id="r"), ReasoningDeltaPart(id="r", text="hm"),
        ReasoningEndPart(id="r"), TextStartPart(id="t"), TextDeltaPart(id="t", text="Hi"), TextEndPart(id="t"),
        FinishStepPart(finish_reason="stop"),
        FinishPart(finish_reason="stop", total_usage=Usage(input_tokens=3, output_tokens=2)),
    )
    assert chunks == [
        {"type": "start", "messageId": "m1"}, {"type": "start-step"},
        {"type": "reasoning-start", "id": "r"}, {"type": "reasoning-delta", "id": "r", "delta": "hm"},
        {"type": "reasoning-end", "id": "r"},
        {"type": "text-start", "id": "t"}, {"type": "text-delta", "id": "t", "delta": "Hi"}, {"type": "text-end", "id": "t"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop",
         "messageMetadata": {"harness": {"finishReason": "stop", "usage": {"inputTokens": 3, "outputTokens": 2}}}},
    ]


def test_finish_reasons_map_to_the_ui_values() -> None:
    assert map_finish_reason("awaiting-approval") == "tool-calls"
    assert map_finish_reason("awaiting-tool-result") == "tool-calls"
    assert map_finish_reason("aborted") == "other"
    assert map_finish_reason("unknown") == "other"
    for reason in ("stop", "length", "content-filter", "tool-calls", "error", "other"):
        assert map_finish_reason(reason) == reason


def test_streamed_builtin_call_then_result() -> None:
    converter = UIStreamConverter()
    meta = {"claude-code": {"nativeToolName": "Bash"}}
    chunks = convert(
        converter,
        ToolInputStartPart(id="c1", tool_name="bash", provider_executed=True),
        ToolInputDeltaPart(id="c1", delta='{"command":'), ToolInputEndPart(id="c1"),
        ToolCallPart(tool_call_id="c1", tool_name="bash", input={"command": "ls"}, provider_executed=True,
                     provider_metadata=meta),
        ToolResultPart(tool_call_id="c1", tool_name="bash", output="a\n", provider_executed=True, preliminary=True),
        ToolResultPart(tool_call_id="c1", tool_name="bash", output="a\nb\n", provider_executed=True),
    )
    assert chunks == [
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "bash", "providerExecuted": True},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"command":'},
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "bash", "input": {"command": "ls"},
         "providerExecuted": True, "providerMetadata": meta},
        {"type": "tool-output-available", "toolCallId": "c1", "output": "a\n", "providerExecuted": True,
         "preliminary": True},
        {"type": "tool-output-available", "toolCallId": "c1", "output": "a\nb\n", "providerExecuted": True},
    ]


def test_host_call_error_and_invalid_input() -> None:
    converter = UIStreamConverter()
    chunks = convert(
        converter,
        ToolCallPart(tool_call_id="h1", tool_name="weather", input={"city": 1}),
        ToolErrorPart(tool_call_id="h1", tool_name="weather", error="city: 1 is not a string"),
        ToolCallPart(tool_call_id="h2", tool_name="weather", input="{bad", invalid=True, error="not JSON"),
    )
    assert chunks == [
        {"type": "tool-input-available", "toolCallId": "h1", "toolName": "weather", "input": {"city": 1}},
        {"type": "tool-output-error", "toolCallId": "h1", "errorText": "city: 1 is not a string"},
        {"type": "tool-input-error", "toolCallId": "h2", "toolName": "weather", "input": "{bad",
         "errorText": "not JSON"},
    ]


def test_approval_request_response_and_denial() -> None:
    converter = UIStreamConverter()
    call = ToolCallPart(tool_call_id="c2", tool_name="bash", input={"command": "rm x"}, provider_executed=True)
    chunks = convert(
        converter, call, ToolApprovalRequestPart(approval_id="a2", tool_call=call),
        ToolApprovalResponsePart(approval_id="a2", approved=False, reason="no"),
        ToolOutputDeniedPart(tool_call_id="c2", tool_name="bash", reason="no", provider_executed=True),
    )
    assert [c["type"] for c in chunks] == ["tool-input-available", "tool-approval-request",
                                           "tool-approval-response", "tool-output-denied"]
    assert chunks[1] == {"type": "tool-approval-request", "approvalId": "a2", "toolCallId": "c2"}
    assert chunks[2] == {"type": "tool-approval-response", "approvalId": "a2", "approved": False, "reason": "no"}
    assert chunks[3] == {"type": "tool-output-denied", "toolCallId": "c2"}


def test_an_automatic_pair_maps_onto_the_ai_sdk_chunks() -> None:
    converter = UIStreamConverter()
    call = ToolCallPart(tool_call_id="c5", tool_name="record", input={"text": "x"})
    chunks = convert(
        converter, call, ToolApprovalRequestPart(approval_id="a5", tool_call=call, is_automatic=True),
        ToolApprovalResponsePart(approval_id="a5", approved=False, reason="denied by configuration",
                                 is_automatic=True),
        ToolOutputDeniedPart(tool_call_id="c5", tool_name="record", reason="denied by configuration"),
    )
    assert chunks[1:] == [
        {"type": "tool-approval-request", "approvalId": "a5", "toolCallId": "c5", "isAutomatic": True},
        {"type": "tool-approval-response", "approvalId": "a5", "approved": False,
         "reason": "denied by configuration"},
        {"type": "tool-output-denied", "toolCallId": "c5"}]


def test_a_continuation_sends_the_client_outputs_it_continues_with_after_start() -> None:
    converter = UIStreamConverter(message_id="m2", known_calls={"c6", "c7"}, client_results=[
        ToolResultContinuation("c6", {"color": "teal"}),
        ToolResultContinuation("c7", "no screen", is_error=True),
        ToolResultContinuation("c8", ToolOutput("as text", value={"k": 1}))])
    chunks = convert(converter, StartPart(), StartStepPart(), StartPart())
    assert chunks == [
        {"type": "start", "messageId": "m2"},
        {"type": "tool-output-available", "toolCallId": "c6", "output": {"color": "teal"}},
        {"type": "tool-output-error", "toolCallId": "c7", "errorText": "no screen"},
        {"type": "tool-output-available", "toolCallId": "c8", "output": {"content": "as text", "isError": False}},
        {"type": "start-step"},
        {"type": "start", "messageId": "m2"}]  # sent once


def test_a_request_whose_call_was_not_streamed_announces_the_call_first() -> None:
    call = ToolCallPart(tool_call_id="c3", tool_name="record", input={"text": "x"})
    chunks = UIStreamConverter().convert(ToolApprovalRequestPart(approval_id="a3", tool_call=call))
    assert chunks == [{"type": "tool-input-available", "toolCallId": "c3", "toolName": "record", "input": {"text": "x"}},
                      {"type": "tool-approval-request", "approvalId": "a3", "toolCallId": "c3"}]


def test_a_continuation_does_not_repeat_known_calls_and_drops_unknown_approvals() -> None:
    known = UIStreamConverter(known_calls={"c4"}, known_approvals={"a4"})
    assert convert(known, ToolApprovalResponsePart(approval_id="a4", approved=True),
                   ToolResultPart(tool_call_id="c4", tool_name="bash", output="ok", provider_executed=True)) == [
        {"type": "tool-approval-response", "approvalId": "a4", "approved": True},
        {"type": "tool-output-available", "toolCallId": "c4", "output": "ok", "providerExecuted": True}]
    fresh = UIStreamConverter()
    chunks = convert(fresh, ToolApprovalResponsePart(approval_id="a9", approved=True),
                     ToolResultPart(tool_call_id="c9", tool_name="bash", input={"command": "ls"}, output="ok",
                                    provider_executed=True))
    assert chunks == [
        {"type": "tool-input-available", "toolCallId": "c9", "toolName": "bash", "input": {"command": "ls"},
         "providerExecuted": True},
        {"type": "tool-output-available", "toolCallId": "c9", "output": "ok", "providerExecuted": True}]


def test_file_change_and_compaction_are_dynamic_provider_executed_tools() -> None:
    converter = UIStreamConverter()
    chunks = convert(
        converter,
        ToolCallPart(tool_call_id="f1", tool_name="fileChange", input={"path": "a.py", "kind": "modify"},
                     provider_executed=True, dynamic=True),
        ToolResultPart(tool_call_id="f1", tool_name="fileChange", output={"path": "a.py"}, provider_executed=True,
                       dynamic=True),
        ToolResultPart(tool_call_id="k1", tool_name="compaction", output={"summary": "s"}, provider_executed=True),
    )
    assert all(chunk["dynamic"] is True and chunk["providerExecuted"] is True for chunk in chunks)
    assert [c["type"] for c in chunks] == ["tool-input-available", "tool-output-available", "tool-input-available",
                                           "tool-output-available"]
    assert chunks[2]["toolName"] == "compaction"


def test_errors_are_masked_and_the_detail_goes_to_the_callback() -> None:
    reports: list[ErrorReport] = []
    converter = UIStreamConverter(chat_id="chat-7", on_error=reports.append)
    (chunk,) = converter.convert(ErrorPart(error="API key sk-secret rejected by https://internal", error_type="runtime-crashed"))
    assert chunk["type"] == "error"
    assert "sk-secret" not in chunk["errorText"] and "internal" not in chunk["errorText"]
    assert "(runtime-crashed)" in chunk["errorText"]
    (report,) = reports
    assert report.message == "API key sk-secret rejected by https://internal"
    assert report.chat_id == "chat-7" and report.reference in chunk["errorText"] and report.masked == chunk["errorText"]
    weird = converter.convert(ErrorPart(error="x", error_type="Bad Type: with detail"))[0]
    assert "Bad Type" not in weird["errorText"]
    raised = converter.error_chunk(RuntimeError("db password=hunter2"))
    assert "hunter2" not in raised["errorText"] and reports[-1].exception is not None


def test_a_raising_error_callback_does_not_break_the_stream() -> None:
    def boom(report: ErrorReport) -> None:
        raise RuntimeError("callback failed")

    (chunk,) = UIStreamConverter(on_error=boom).convert(ErrorPart(error="x"))
    assert chunk["type"] == "error"


def test_abort_and_raw() -> None:
    converter = UIStreamConverter()
    assert converter.convert(AbortPart(reason="stop pressed")) == [{"type": "abort", "reason": "stop pressed"}]
    from harness_core import RawPart

    assert converter.convert(RawPart(raw_value={"x": 1})) == []
    json.dumps(converter.convert(AbortPart()))
