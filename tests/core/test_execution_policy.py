"""The executor, the core's execution-policy wrappers, and the call scheduler.

The timeout, the ``on_error`` policy and the 100,000-character cut are ordinary
``harness_execute_tool`` wrappers (``tool-timeout``, ``error-policy``, ``output-limit``):
they can be wrapped, disabled and replaced. :class:`CallScheduler` admits calls in order:
read-only ones in parallel, the others alone.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from harness_core import (
    MAX_OUTPUT_CHARS,
    CallScheduler,
    ExecutionContext,
    ToolCall,
    ToolContext,
    ToolExecutionError,
    ToolOutput,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)

CALL = ToolCall(tool_call_id="c1", tool_name="t")


def context_for(execute: Any, **options: Any) -> ExecutionContext:
    tool = define_harness_tool(name="t", description="A tool.", input={"type": "object"}, execute=execute)
    return ExecutionContext(tool=tool, tool_context=ToolContext(tool_call_id="c1", tool_name="t"), **options)


def run(manager: Any, context: ExecutionContext) -> ToolOutput:
    output: ToolOutput = anyio.run(manager.hooks.execute_tool, CALL, context)
    return output


def boom(input: Any, ctx: Any) -> str:
    raise ValueError("boom")


def test_the_core_wrappers_apply_through_the_hook() -> None:
    m = create_plugin_manager(load_entry_points=False, env={})
    assert run(m, context_for(lambda i, c: "x" * (MAX_OUTPUT_CHARS + 10))).content.endswith(
        f"[output truncated: 10 of {MAX_OUTPUT_CHARS + 10} characters omitted]")
    failed = run(m, context_for(boom))
    assert (failed.content, failed.is_error, type(failed.exception)) == ("Error: ValueError: boom", True, ValueError)
    with pytest.raises(ToolExecutionError, match=r"tool 't' \(call c1\) failed: ValueError: boom"):
        run(m, context_for(boom, on_error="fail"))

    async def slow(input: Any, ctx: Any) -> str:
        await anyio.sleep(30)
        return "late"

    assert run(m, context_for(slow, timeout=0.05)).content == "Error: tool 't' timed out after 0.05 s"


def test_the_output_limit_can_be_replaced() -> None:
    class Shorter:
        @hookimpl(wrapper=True)
        def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Generator[None, Any, Any]:
            awaitable = yield

            async def cut() -> ToolOutput:
                output = await awaitable
                return ToolOutput(output.content[:5], output.is_error)

            return cut()

    m = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "output-limit"},
                              plugins=[Shorter()])
    assert run(m, context_for(lambda i, c: "abcdefgh")).content == "abcde"
    long = run(create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "output-limit"}),
               context_for(lambda i, c: "y" * (MAX_OUTPUT_CHARS + 1)))
    assert len(long.content) == MAX_OUTPUT_CHARS + 1  # no cut without the plugin


def test_a_wrapper_outside_the_core_policies_sees_the_error_result_not_the_exception() -> None:
    seen: list[ToolOutput] = []

    class Audit:
        @hookimpl(wrapper=True)
        def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Generator[None, Any, Any]:
            awaitable = yield

            async def audited() -> ToolOutput:
                output: ToolOutput = await awaitable
                seen.append(output)
                return output

            return audited()

    m = create_plugin_manager(load_entry_points=False, env={}, plugins=[Audit()])
    run(m, context_for(boom))
    assert [(o.content, o.is_error) for o in seen] == [("Error: ValueError: boom", True)]


def test_without_the_error_policy_the_facade_still_never_raises_but_tool_execution_error() -> None:
    m = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "error-policy"})
    assert run(m, context_for(boom)).content == "Error: ValueError: boom"
    with pytest.raises(ToolExecutionError):
        run(m, context_for(boom, on_error="fail"))


def test_a_replacement_timeout_policy_is_used() -> None:
    class NoTimeouts:
        @hookimpl(wrapper=True)
        def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Generator[None, Any, Any]:
            return (yield)

    async def slowish(input: Any, ctx: Any) -> str:
        await anyio.sleep(0.2)
        return "finished"

    m = create_plugin_manager(load_entry_points=False, env={"HARNESS_DISABLE_PLUGINS": "tool-timeout"},
                              plugins=[NoTimeouts()])
    assert run(m, context_for(slowish, timeout=0.01)).content == "finished"


# -- CallScheduler ---------------------------------------------------------------------


async def schedule(kinds: str, max_parallel: int | None = None) -> list[str]:
    """Run calls (``r`` read-only, ``w`` exclusive) started in order; the event log."""
    scheduler = CallScheduler(max_parallel=max_parallel)
    log: list[str] = []
    peak = {"n": 0}

    async def call(index: int, kind: str) -> None:
        async with scheduler.slot(read_only=kind == "r"):
            peak["n"] = max(peak["n"], scheduler.running)
            log.append(f"+{kind}{index}")
            await anyio.sleep(0.02)
            log.append(f"-{kind}{index}")

    async with anyio.create_task_group() as group:
        for index, kind in enumerate(kinds):
            group.start_soon(call, index, kind)
            await anyio.lowlevel.checkpoint()  # let it take its place in the queue
    log.append(f"peak={peak['n']}")
    return log


@pytest.mark.anyio
async def test_read_only_calls_run_in_parallel_and_exclusive_ones_alone_in_order() -> None:
    log = await schedule("rrwrr")
    assert log[:2] == ["+r0", "+r1"]  # both readers in before either left
    w_in, w_out = log.index("+w2"), log.index("-w2")
    assert w_out == w_in + 1  # nothing ran while the writer held its slot
    assert all(log.index(f"-r{i}") < w_in for i in (0, 1))  # earlier calls finished first
    assert all(log.index(f"+r{i}") > w_out for i in (3, 4))  # later readers waited, in order
    assert log[-1] == "peak=2"


@pytest.mark.anyio
async def test_max_parallel_bounds_the_readers() -> None:
    assert (await schedule("rrrr", max_parallel=2))[-1] == "peak=2"
    assert (await schedule("rrrr"))[-1] == "peak=4"


@pytest.mark.anyio
async def test_a_cancelled_waiter_gives_its_place_back() -> None:
    scheduler = CallScheduler()
    done: list[str] = []

    async def writer(name: str, hold: float) -> None:
        async with scheduler.slot(read_only=False):
            await anyio.sleep(hold)
            done.append(name)

    async with anyio.create_task_group() as group:
        group.start_soon(writer, "first", 0.05)
        await anyio.sleep(0.01)
        with anyio.move_on_after(0.01):
            await writer("cancelled", 0)
        group.start_soon(writer, "third", 0)
    assert done == ["first", "third"] and scheduler.running == 0
