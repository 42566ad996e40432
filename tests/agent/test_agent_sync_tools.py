"""Sync host tools run in worker threads: they overlap, time out and abort promptly.

Concurrency is shown with synchronisation, not wall-clock thresholds: two tools meeting
at a ``threading.Barrier(2)`` both succeed only if they run at the same time, and a sync
tool waiting for an async tool to signal it succeeds only if the event loop kept running.
Tools that must outlive a timeout or an abort wait on a ``threading.Event`` the test sets
in teardown, so no thread is left blocked.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import pytest

from harness_core import ToolExecutionEnd, define_harness_tool
from harness_core.parts.models import AbortPart, ToolErrorPart, ToolResultPart
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

WAIT = 10.0
"""Seconds a synchronisation primitive waits before the test counts as failed (never
reached when the code is right)."""


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event blocked tools wait on; set at teardown so their threads finish."""
    event = threading.Event()
    yield event
    event.set()


def tool(name: str, execute: Any, **options: Any) -> Any:
    return define_harness_tool(name=name, description=f"The {name} tool.", input={"type": "object"},
                               execute=execute, **options)


def calls(*names: str) -> ScriptedAdapter:
    return ScriptedAdapter([[[CallHost(name, {}, id=name) for name in names], [EchoResults()]]])


@pytest.mark.anyio
async def test_read_only_sync_tools_run_at_the_same_time() -> None:
    barrier = threading.Barrier(2, timeout=WAIT)

    def meet(input: Any, ctx: Any) -> str:
        barrier.wait()  # BrokenBarrierError unless the other call is running too
        return "met"

    adapter = calls("a", "b")
    agent = adapter.agent(tools=[tool("a", meet, read_only=True), tool("b", meet, read_only=True)])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "a: met | b: met"
    assert not any(isinstance(p, ToolErrorPart) for p in result.parts)


@pytest.mark.anyio
async def test_a_blocking_sync_tool_does_not_stall_the_event_loop() -> None:
    signal = threading.Event()
    loop_thread = threading.get_ident()
    threads: dict[str, int] = {}

    def wait_for_signal(input: Any, ctx: Any) -> str:
        threads["sync"] = threading.get_ident()
        return "signalled" if signal.wait(WAIT) else "the event loop was blocked"

    async def send_signal(input: Any, ctx: Any) -> str:
        threads["async"] = threading.get_ident()
        await anyio.sleep(0.01)
        signal.set()
        return "sent"

    adapter = calls("waiter", "sender")
    agent = adapter.agent(tools=[tool("waiter", wait_for_signal, read_only=True),
                                 tool("sender", send_signal, read_only=True)])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "waiter: signalled | sender: sent"
    assert threads["async"] == loop_thread and threads["sync"] != loop_thread


@pytest.mark.anyio
async def test_a_timeout_on_a_blocked_sync_tool_returns_an_error_result(release: threading.Event) -> None:
    finished = threading.Event()
    ends: list[ToolExecutionEnd] = []

    def stuck(input: Any, ctx: Any) -> str:
        release.wait(WAIT)
        finished.set()
        return "late"

    adapter = calls("stuck")
    agent = adapter.agent(tools=[tool("stuck", stuck)], tool_timeout=0.2, on_tool_execution_end=ends.append)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert error.error == "Error: tool 'stuck' timed out after 0.2 s"
    assert result.finish_reason == "stop" and result.text == "stuck: Error: tool 'stuck' timed out after 0.2 s"
    assert not finished.is_set()  # the call was abandoned while its thread still waited
    (end,) = ends
    assert isinstance(end.error, TimeoutError) and end.output.is_error
    release.set()
    assert await anyio.to_thread.run_sync(finished.wait, WAIT)  # the thread finishes in the background


@pytest.mark.anyio
async def test_aborting_during_a_sync_tool_ends_the_slice_with_an_abort_part(release: threading.Event) -> None:
    started = threading.Event()

    def stuck(input: Any, ctx: Any) -> str:
        started.set()
        release.wait(WAIT)
        return "late"

    adapter = ScriptedAdapter([[[CallHost("stuck", {}, id="s1")], [EchoResults()]], [[EchoResults()]]])
    agent = adapter.agent(tools=[tool("stuck", stuck)])
    session = await agent.create_session()
    result = agent.stream(session=session, prompt="go")
    parts = []
    async with anyio.create_task_group() as tg:
        async def abort_once_running() -> None:
            assert await anyio.to_thread.run_sync(started.wait, WAIT)
            result.abort("user pressed stop")

        tg.start_soon(abort_once_running)
        async for part in result.full_stream:
            parts.append(part)
    assert isinstance(parts[-1], AbortPart) and parts[-1].reason == "user pressed stop"
    assert [p.type for p in parts].count("finish") == 0
    assert not release.is_set() and "s1" not in adapter.tool_results
    assert adapter.aborted == [0]


@pytest.mark.anyio
async def test_sync_generators_step_in_a_thread_and_stream_preliminary_results() -> None:
    loop_thread = threading.get_ident()
    step_threads: list[int] = []

    def count(input: Any, ctx: Any) -> Iterator[str]:
        for n in range(3):
            step_threads.append(threading.get_ident())
            yield f"step {n}"

    adapter = calls("count")
    agent = adapter.agent(tools=[tool("count", count)])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    outputs = [(p.output, p.preliminary) for p in result.parts if isinstance(p, ToolResultPart)]
    assert outputs == [("step 0", True), ("step 1", True), ("step 2", True), ("step 2", None)]
    assert loop_thread not in step_threads and len(step_threads) == 3


@pytest.mark.anyio
async def test_a_sync_generator_is_abandoned_on_timeout(release: threading.Event) -> None:
    def slow_steps(input: Any, ctx: Any) -> Iterator[str]:
        yield "first"
        release.wait(WAIT)
        yield "never seen"

    adapter = calls("steps")
    agent = adapter.agent(tools=[tool("steps", slow_steps)], tool_timeout=0.2)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    previews = [p.output for p in result.parts if isinstance(p, ToolResultPart)]
    (error,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert previews == ["first"] and "timed out after 0.2 s" in error.error


@pytest.mark.anyio
async def test_sync_to_model_output_runs_in_a_thread_and_sync_tools_can_call_async_code() -> None:
    loop_thread = threading.get_ident()
    seen: dict[str, Any] = {}

    def execute(input: Any, ctx: Any) -> dict[str, int]:
        # The documented bridge: a sync tool runs async code on the loop.
        anyio.from_thread.run(anyio.sleep, 0)
        seen["execute"] = threading.get_ident()
        seen["ctx"] = (ctx.tool_name, ctx.tool_call_id)
        return {"n": 1}

    def shorten(value: dict[str, int]) -> str:
        seen["to_model_output"] = threading.get_ident()
        return f"n={value['n']}"

    adapter = calls("t")
    agent = adapter.agent(tools=[tool("t", execute, to_model_output=shorten)])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "t: n=1"
    assert seen["ctx"] == ("t", "t")
    assert seen["execute"] != loop_thread and seen["to_model_output"] != loop_thread


@pytest.mark.anyio
async def test_async_tools_still_run_on_the_event_loop() -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    async def execute(input: Any, ctx: Any) -> str:
        seen.append(threading.get_ident())
        return "ok"

    class AsyncCallable:
        async def __call__(self, input: Any, ctx: Any) -> str:
            seen.append(threading.get_ident())
            return "ok"

    adapter = ScriptedAdapter([[[CallHost("a", {}, id="a"), CallHost("b", {}, id="b")],
                                [EchoResults()]]])
    agent = adapter.agent(tools=[tool("a", execute), tool("b", AsyncCallable())])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "a: ok | b: ok" and seen == [loop_thread, loop_thread]
