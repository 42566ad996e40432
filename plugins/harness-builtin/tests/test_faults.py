"""Faults of the model stream and the model server during a built-in turn (issue 16): a
dropped ``content_block_start`` is a clear error instead of a lost tool call; a model
server that dies mid-turn gives a prompt error part and the session takes the next turn."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.parts.models import ErrorPart
from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = pytest.mark.anyio


def agent_for(base_url: str, **options: Any) -> HarnessAgent:
    return HarnessAgent(harness="builtin", include_plugin_tools=False,
                        harness_options={"model": "anthropic:fake-model", "base_url": base_url,
                                         "api_key": "test-key", "max_retries": 0}, **options)


async def test_a_dropped_content_block_start_is_an_error_not_a_lost_call(scripted_model_server,
                                                                        workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": "made.txt", "content": "x"}, id="c1")]),
        "Recovered."), faults=[Fault.drop("content_block_start", at=0)])
    agent = agent_for(server.base_url)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="make a file")
        [error] = [p for p in result.parts if isinstance(p, ErrorPart)]
        assert result.finish_reason == "error"
        assert error.error_type == "incomplete-response"
        assert "content_block_start" in error.error and "block 0" in error.error
        assert not (workspace / "made.txt").exists()
        again = await agent.generate(session=session, prompt="again")
        assert again.finish_reason == "stop"


async def test_a_model_server_dying_mid_turn_gives_an_error_and_the_session_goes_on(workspace: Path) -> None:
    first = ScriptedModelServer(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("stop_server", {}, id="c1")]), "never sent")).start()
    port = first.port
    died: list[float] = []

    def stop_server(value: Any, context: Any) -> str:
        first.stop()
        died.append(time.monotonic())
        return "stopped"

    tool = define_harness_tool(name="stop_server", description="d", input={"type": "object"}, execute=stop_server)
    agent = agent_for(first.base_url, tools=[tool])
    second: ScriptedModelServer | None = None
    try:
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
            ended = time.monotonic()
            [error] = [p for p in result.parts if isinstance(p, ErrorPart)]
            assert result.finish_reason == "error"
            assert error.error_type == "connection", error
            assert died and ended - died[0] < 10, "the error came long after the server died"
            assert [p.output for p in result.parts if p.type == "tool-result"] == ["stopped"]
            assert session.state == "idle"
            # The history holds one model answer (the tool call): the next request is turn 1.
            second = ScriptedModelServer(Script.of("(turn 0 already answered)", "Back again."), port=port).start()
            again = await agent.generate(session=session, prompt="still there?")
            assert again.finish_reason == "stop" and again.text == "Back again."
            # The next request carries the earlier turn, tool result included.
            assert "stopped" in (second.last_tool_result() or "")
    finally:
        first.stop()
        if second is not None:
            second.stop()
            second.raise_errors()


async def test_a_model_failure_after_an_approval_ends_the_turn_and_the_session_goes_on(scripted_model_server,
                                                                                      workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": "made.txt", "content": "x"}, id="c1")]),
        "Next turn."), faults=[Fault.http_error(500, at=1)])  # the failed call consumes no turn
    agent = agent_for(server.base_url, permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="make a file")
        [request] = first.approval_requests
        started = time.monotonic()
        after = await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
        assert time.monotonic() - started < 30
        [error] = [p for p in after.parts if isinstance(p, ErrorPart)]
        assert after.finish_reason == "error" and error.error_type == "server-error"
        assert (workspace / "made.txt").read_text() == "x"
        assert session.state == "idle"
        again = await agent.generate(session=session, prompt="go on")
        assert again.finish_reason == "stop" and again.text == "Next turn."
