"""Issue 16 item 9 and the fault guarantee: the Claude Code CLI killed at any moment.

The test kills the real CLI process (its pid from the adapter session) while a model request
is in flight, while a host tool runs, and while an approval waits. Each time the stream
gets a ``runtime-crashed`` error promptly (within a second of the kill, not when the host
tool finishes), no ``KeyError`` reaches the stream, and the session answers the next prompt.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON, eventually

from harness_core import (
    ErrorPart,
    FinishPart,
    HarnessAgent,
    ToolApprovalRequestPart,
    define_harness_tool,
)
from harness_core.testing import ModelRequest, ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]

PROMPT_SECONDS = 1.0


def _slow_tool(started: threading.Event, release: threading.Event) -> Any:
    def slow(input: dict[str, Any], ctx: Any) -> str:
        started.set()
        release.wait(30)
        return "slow done"

    return define_harness_tool(name="slow", description="Take a while.",
                               input={"type": "object", "properties": {}}, execute=slow)


async def _crash_and_time(agent: HarnessAgent, session: Any, prompt: str,
                          ready: Callable[[Any], Awaitable[bool]]) -> tuple[list[Any], float]:
    """Stream ``prompt``; once ``ready(part)`` says so, SIGKILL the CLI; return the parts and
    the seconds from the kill to the runtime-crashed error part."""
    stream = agent.stream(session=session, prompt=prompt)
    parts: list[Any] = []
    killed_at: float | None = None
    crashed_after: float | None = None
    adapter_session: Any = session.adapter_session
    async for part in stream.full_stream:
        parts.append(part)
        if killed_at is None and await ready(part):
            pid = adapter_session.runtime_pids[0]
            killed_at = time.monotonic()
            os.kill(pid, signal.SIGKILL)
        if isinstance(part, ErrorPart) and part.error_type == "runtime-crashed" and killed_at is not None:
            crashed_after = time.monotonic() - killed_at
    assert killed_at is not None, [p.type for p in parts]
    assert crashed_after is not None, " | ".join(f"{p.type}:{getattr(p, 'error', '')}" for p in parts)
    return parts, crashed_after


def _check(parts: list[Any], crashed_after: float) -> None:
    assert crashed_after < PROMPT_SECONDS, f"runtime-crashed came {crashed_after:.2f} s after the kill"
    text = str([p.to_json() for p in parts])
    assert "KeyError" not in text, text
    finishes = [p for p in parts if isinstance(p, FinishPart)]
    assert finishes and finishes[-1].finish_reason == "error"
    check_stream_shape(parts)


async def _usable(agent: HarnessAgent, session: Any) -> None:
    result = await agent.generate(session=session, prompt="again")
    assert result.finish_reason == "stop", result.error
    assert result.all_text  # the model answered through a new CLI process


async def test_kill_while_a_host_tool_runs(scripted_model_server: Any, adapter_settings: Any) -> None:
    started, release = threading.Event(), threading.Event()
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__slow", {}, id="toolu_slow")]),
        "Recovered.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), tools=[_slow_tool(started, release)])

    async def tool_running(part: Any) -> bool:
        if part.type != "tool-call":
            return False
        await anyio.to_thread.run_sync(lambda: started.wait(30))
        return True

    try:
        async with await agent.create_session() as session:
            parts, crashed_after = await _crash_and_time(agent, session, "slow", tool_running)
            _check(parts, crashed_after)
            release.set()
            await _usable(agent, session)
    finally:
        release.set()


async def test_kill_during_a_model_request(scripted_model_server: Any, adapter_settings: Any,
                                           workspace: Path) -> None:
    in_request = threading.Event()

    def respond(request: ModelRequest) -> Any:
        if request.turn_index == 0:
            in_request.set()
            time.sleep(4)  # the CLI dies while it waits for this answer
        return ModelTurn("Recovered.")

    server = scripted_model_server(Script(turns=(), respond=respond))
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)))

    async def requesting(part: Any) -> bool:
        if part.type != "start-step" and part.type != "start":
            return False
        await anyio.to_thread.run_sync(lambda: in_request.wait(30))
        return True

    async with await agent.create_session() as session:
        parts, crashed_after = await _crash_and_time(agent, session, "hello", requesting)
        _check(parts, crashed_after)
        await _usable(agent, session)


async def test_kill_while_an_approval_waits(scripted_model_server: Any, adapter_settings: Any,
                                            workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo hi > hi.txt"})]),
        "Recovered.",
    ])
    agent = HarnessAgent(harness=claude_code(**adapter_settings(server)), permission_mode="allow-reads")
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="shell")
        assert first.finish_reason == "awaiting-approval", first.error
        adapter_session: Any = session.adapter_session
        await eventually(lambda: bool(adapter_session.runtime_pids))
        killed_at = time.monotonic()
        os.kill(adapter_session.runtime_pids[0], signal.SIGKILL)
        (request,) = first.approval_requests
        stream = agent.continue_stream(session=session, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
        parts = [part async for part in stream.full_stream]
        crashed_after = time.monotonic() - killed_at
        errors = [p for p in parts if isinstance(p, ErrorPart) and p.error_type == "runtime-crashed"]
        assert errors, [p.to_json() for p in parts]
        _check(parts, crashed_after)
        assert not (workspace / "hi.txt").exists()
        assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)]
        await _usable(agent, session)
