"""Tool executions recorded by call id on SQLite (harness_dbos.inline_tool), without DBOS:
a recorded execution is returned and not run again, a claimed and unrecorded one is
INTERRUPTED, two racing executions run once, a failure is rebuilt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from harness_dbos import INTERRUPTED
from harness_dbos._context import TurnRuntime
from harness_dbos.claims import SqlClaimStore
from harness_dbos.inline_tool import inline_tool_call
from harness_dbos.runtime_records import RuntimeRecords

from harness_core import ToolCall, ToolOutput


def _runtime(tmp_path: Path) -> TurnRuntime:
    url = f"sqlite:///{tmp_path / 'system.sqlite'}"
    return TurnRuntime(workflow_id="wf-1", claims=SqlClaimStore(url), tool_records=RuntimeRecords(url))


def _call(call_id: str = "call_1") -> ToolCall:
    return ToolCall(tool_call_id=call_id, tool_name="echo", input={"text": "x"})


class Counter:
    def __init__(self) -> None:
        self.runs = 0

    async def run(self, text: str, exception: Exception | None = None) -> ToolOutput:
        self.runs += 1
        await asyncio.sleep(0.01)
        return ToolOutput(text, exception=exception)


@pytest.mark.anyio
async def test_a_recorded_execution_is_replayed_without_running(tmp_path: Path) -> None:
    counter = Counter()
    live = await inline_tool_call(counter.run("one", ValueError("host only")), _call(), _runtime(tmp_path))
    assert live.content == "one" and isinstance(live.exception, ValueError)
    replayed = await inline_tool_call(counter.run("two"), _call(), _runtime(tmp_path))  # a new run of the workflow
    assert (replayed.content, replayed.exception, counter.runs) == ("one", None, 1)


@pytest.mark.anyio
async def test_a_repeated_call_id_is_a_second_execution(tmp_path: Path) -> None:
    counter, runtime = Counter(), _runtime(tmp_path)
    first = await inline_tool_call(counter.run("one"), _call(), runtime)
    second = await inline_tool_call(counter.run("two"), _call(), runtime)
    assert (first.content, second.content, counter.runs) == ("one", "two", 2)


@pytest.mark.anyio
async def test_a_claimed_unrecorded_execution_is_interrupted_for_good(tmp_path: Path) -> None:
    counter, runtime = Counter(), _runtime(tmp_path)
    task = asyncio.ensure_future(inline_tool_call(counter.run("slow"), _call(), runtime))
    await asyncio.sleep(0)  # claimed, running: as if the worker died now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(2):
        output = await inline_tool_call(counter.run("again"), _call(), _runtime(tmp_path))
        assert (output.content, output.is_error) == (INTERRUPTED, True)
    assert counter.runs == 1


@pytest.mark.anyio
async def test_two_racing_executions_run_once_and_agree(tmp_path: Path) -> None:
    counter = Counter()
    outputs = await asyncio.gather(inline_tool_call(counter.run("a"), _call(), _runtime(tmp_path)),
                                   inline_tool_call(counter.run("b"), _call(), _runtime(tmp_path)))
    assert counter.runs == 1
    replay = await inline_tool_call(counter.run("c"), _call(), _runtime(tmp_path))
    assert replay.content in {"a", INTERRUPTED} and counter.runs == 1
    assert {o.content for o in outputs} == {replay.content}


@pytest.mark.anyio
async def test_a_failure_is_recorded_and_rebuilt(tmp_path: Path) -> None:
    async def fail() -> ToolOutput:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        await inline_tool_call(fail(), _call(), _runtime(tmp_path))
    with pytest.raises(KeyError, match="boom"):
        await inline_tool_call(fail(), _call(), _runtime(tmp_path))
