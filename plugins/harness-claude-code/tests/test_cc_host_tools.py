"""Host tools offered through the in-process MCP server."""

from __future__ import annotations

from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HostToolCall, HostToolSpec, PromptRequest, StartRequest, ToolOutput
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]

WEATHER = HostToolSpec(
    name="weather",
    description="Current temperature for a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    read_only=True,
)


async def test_host_tool_round_trip_through_mcp(scripted_model_server: Any, adapter_settings: Any, driver: Any) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__weather", {"city": "Paris"})]),
        "It is 12 degrees in Paris.",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-host", host_tools=[WEATHER], builtin_approvals=True))
    seen: list[HostToolCall] = []

    def answer(call: HostToolCall) -> ToolOutput:
        seen.append(call)
        return ToolOutput('{"city": "Paris", "celsius": 12}')

    try:
        log = await driver(await session.prompt(PromptRequest(prompt="weather?")), tool_result=answer,
                           approve=lambda r: pytest.fail(f"host tools are not built-ins: {r}"))
    finally:
        await session.destroy()
    assert "mcp__harness__weather" in server.offered_tools(0)
    [call] = seen
    assert call.call.tool_name == "weather"
    assert call.call.native_tool_name == "mcp__harness__weather"
    assert call.call.provider_metadata == {"claude-code": {"nativeToolName": "mcp__harness__weather"}}
    assert call.call.input == {"city": "Paris"}
    assert call.call.tool_call_id.startswith("toolu_")
    assert not call.call.provider_executed
    assert server.last_tool_result() == '{"city": "Paris", "celsius": 12}'
    # The core reports host calls itself: the adapter's only trace of one is the HostToolCall.
    assert [p.type for p in log.parts if p.type.startswith("tool-")] == []
    assert [type(e).__name__ for e in log.timeline if not hasattr(e, "type")] == ["HostToolCall", "TurnEnd"]
    assert log.text == "It is 12 degrees in Paris."


async def test_host_tool_error_and_raw_arguments_reach_the_host(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__weather", {"town": 3})]),
        "Sorry.",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-host-error", host_tools=[WEATHER]))
    seen: list[HostToolCall] = []

    def answer(call: HostToolCall) -> ToolOutput:
        seen.append(call)
        return ToolOutput("invalid input: $.city is required", is_error=True)

    try:
        await driver(await session.prompt(PromptRequest(prompt="weather?")), tool_result=answer)
    finally:
        await session.destroy()
    assert [c.call.input for c in seen] == [{"town": 3}]
    [result] = server.model_requests[-1].tool_results
    assert result.is_error and "$.city is required" in result.text
