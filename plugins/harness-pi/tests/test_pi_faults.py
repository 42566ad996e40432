"""Issue 16 fault guarantee on pi: the pi process killed during a model request, while a host
tool runs and while an approval waits gives a prompt ``runtime-crashed`` error (within a
second of the kill), no ``KeyError``, and the session answers the next prompt (pi starts
again on the same session file)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from harness_core import ErrorPart, FinishPart, HarnessAgent, define_harness_tool
from harness_core.testing import ModelRequest, ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]

PROMPT_SECONDS = 1.0


def _kill(session: Any) -> float:
    pid = session.adapter_session.pi_pid  # pi itself (a node program), not a wrapper
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return time.monotonic()


async def _stream_and_kill(agent: HarnessAgent, session: Any, prompt: str,
                           ready: Callable[[Any], Awaitable[bool]]) -> tuple[list[Any], float]:
    stream = agent.stream(session=session, prompt=prompt)
    parts: list[Any] = []
    killed_at: float | None = None
    crashed_after: float | None = None
    async for part in stream.full_stream:
        parts.append(part)
        if killed_at is None and await ready(part):
            killed_at = _kill(session)
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
    assert result.all_text


async def test_kill_while_a_host_tool_runs(pi_agent: PiAgentFactory) -> None:
    started, release = threading.Event(), threading.Event()

    def slow(input: dict[str, Any], ctx: Any) -> str:
        started.set()
        release.wait(30)
        return "slow done"

    tool = define_harness_tool(name="slow", description="Take a while.", input={"type": "object", "properties": {}},
                               execute=slow)

    async def tool_running(part: Any) -> bool:
        if part.type != "tool-call":
            return False
        await anyio.to_thread.run_sync(lambda: started.wait(30))
        return True

    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("slow", {}, id="p-slow")]), "Recovered.", "Again.")
    try:
        with ScriptedModelServer(script) as server:
            agent = pi_agent(server, tools=[tool])
            async with await agent.create_session() as session:
                parts, crashed_after = await _stream_and_kill(agent, session, "slow", tool_running)
                _check(parts, crashed_after)
                release.set()
                await _usable(agent, session)
    finally:
        release.set()


async def test_kill_during_a_model_request(pi_agent: PiAgentFactory) -> None:
    in_request = threading.Event()

    def respond(request: ModelRequest) -> Any:
        if not in_request.is_set():
            in_request.set()
            time.sleep(4)
        return ModelTurn("Recovered.")

    async def requesting(part: Any) -> bool:
        if part.type not in ("start", "start-step"):
            return False
        await anyio.to_thread.run_sync(lambda: in_request.wait(30))
        return True

    with ScriptedModelServer(Script(turns=(), respond=respond)) as server:
        agent = pi_agent(server)
        async with await agent.create_session() as session:
            parts, crashed_after = await _stream_and_kill(agent, session, "hello", requesting)
            _check(parts, crashed_after)
            await _usable(agent, session)


async def test_kill_while_an_approval_waits(pi_agent: PiAgentFactory, workspace: Any) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo hi > hi.txt"}, id="p-hi")]),
                       "Recovered.", "Again.")
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-reads")
        async with await agent.create_session() as session:
            first = await agent.generate(session=session, prompt="shell")
            assert first.finish_reason == "awaiting-approval", first.error
            killed_at = _kill(session)
            (request,) = first.approval_requests
            stream = agent.continue_stream(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": True}])
            parts = [part async for part in stream.full_stream]
            crashed_after = time.monotonic() - killed_at
            assert [p for p in parts if isinstance(p, ErrorPart) and p.error_type == "runtime-crashed"], \
                [p.to_json() for p in parts]
            _check(parts, crashed_after)
            assert not (workspace / "hi.txt").exists()
            await _usable(agent, session)
