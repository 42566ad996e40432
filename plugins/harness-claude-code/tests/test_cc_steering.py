"""Steering on the real Claude Code CLI (scripted model): ``session.steer_turn`` writes a user
message to the CLI's streaming input while the turn runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox, TurnStateError, define_harness_tool
from harness_core.testing import ModelTurn, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]

STEER = "Also mention the colour blue."


def _agent(settings: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(**settings), include_plugin_tools=False, **kwargs)


async def test_steering_reaches_the_model_in_the_same_turn(scripted_model_server: Any, adapter_settings: Any,
                                                           workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__lookup", {})]),
        "Red and blue.",
        "Extra.",
    ])
    holder: dict[str, Any] = {}

    async def lookup(input: Any, ctx: Any) -> str:
        await holder["session"].steer_turn(STEER)  # Claude Code waits for this result
        return "red"

    tool = define_harness_tool(name="lookup", description="Look it up.", input={"type": "object"}, execute=lookup)
    agent = _agent(adapter_settings(server), tools=[tool])
    assert agent.capabilities.supports("steering")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        holder["session"] = session
        result = await agent.generate(session=session, prompt="Which colour?")
        again = await agent.generate(session=session, prompt="And now?")
        with pytest.raises(TurnStateError, match="no running turn"):
            await session.steer_turn("too late")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Red and blue."
    assert again.finish_reason == "stop" and again.text == "Extra."  # the next turn is its own
    first, second, third = server.model_requests
    assert STEER not in json.dumps(first.body)
    assert second.tool_result_count == 1 and STEER in (second.last_user_text or "")  # in the same turn
    assert third.last_user_text == "And now?"
