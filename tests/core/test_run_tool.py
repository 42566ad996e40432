"""run_tool directly: where code runs, how errors and timeouts become results."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from harness_core import ToolCall, ToolContext, ToolOutput, define_harness_tool, normalize_output
from harness_core.execution import (
    TOOL_THREAD_LIMIT,
    ToolExecutionError,
    run_tool,
    tool_thread_limiter,
)
from harness_core.hook_contexts import ExecutionContext


def context_for(execute: Any, **options: Any) -> ExecutionContext:
    tool = define_harness_tool(name="t", description="A tool.", input={"type": "object"}, execute=execute,
                               **{k: options.pop(k) for k in ("to_model_output",) if k in options})
    return ExecutionContext(tool=tool, tool_context=ToolContext(tool_call_id="c1", tool_name="t"), **options)


CALL = ToolCall(tool_call_id="c1", tool_name="t")


@pytest.mark.anyio
async def test_a_timeout_error_the_tool_raises_itself_is_not_reported_as_our_timeout() -> None:
    def connect(input: Any, ctx: Any) -> str:
        raise TimeoutError("the database did not answer")

    output = await run_tool(CALL, context_for(connect, timeout=30))
    assert output.content == "Error: TimeoutError: the database did not answer"
    assert isinstance(output.exception, TimeoutError)


@pytest.mark.anyio
async def test_our_timeout_names_the_tool_and_the_limit_and_fails_the_turn_when_asked() -> None:
    async def slow(input: Any, ctx: Any) -> str:
        await anyio.sleep(30)
        return "late"

    output = await run_tool(CALL, context_for(slow, timeout=0.05))
    assert output == ToolOutput("Error: tool 't' timed out after 0.05 s", is_error=True)
    assert isinstance(output.exception, TimeoutError)
    with pytest.raises(ToolExecutionError, match=r"tool 't' \(call c1\) failed: TimeoutError: tool 't' timed out"):
        await run_tool(CALL, context_for(slow, timeout=0.05, on_error="fail"))


@pytest.mark.anyio
async def test_the_timeout_covers_to_model_output() -> None:
    release = threading.Event()

    def stuck_conversion(value: Any) -> str:
        release.wait(10)
        return "late"

    try:
        output = await run_tool(CALL, context_for(lambda i, c: 1, to_model_output=stuck_conversion, timeout=0.1))
    finally:
        release.set()
    assert output.is_error and "timed out after 0.1 s" in output.content


@pytest.mark.anyio
async def test_sync_calls_use_the_bounded_tool_thread_limiter() -> None:
    limiter = tool_thread_limiter()
    assert limiter is tool_thread_limiter() and limiter.total_tokens == TOOL_THREAD_LIMIT
    seen: list[float] = []

    def execute(input: Any, ctx: Any) -> str:
        seen.append(limiter.borrowed_tokens)
        return "ok"

    assert (await run_tool(CALL, context_for(execute))).content == "ok"
    assert seen == [1]


def test_tool_output_exception_is_host_only() -> None:
    error = ValueError("x")
    output = ToolOutput("Error: ValueError: x", is_error=True, exception=error)
    assert output == ToolOutput("Error: ValueError: x", is_error=True)  # not compared
    assert output.to_json() == {"content": "Error: ValueError: x", "isError": True}  # not serialized
    assert "exception" not in repr(output)
    assert normalize_output(output).exception is error  # kept through normalization
