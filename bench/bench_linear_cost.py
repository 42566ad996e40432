"""Benchmark: per-call cost at 3,000 host-tool calls against 100 (issue 17: linear cost).

``HarnessAgent`` on the built-in harness with a host tool passed as ``tools=`` (so every call
goes through the agent's host-tool path: validation, approval, execution hooks), model = the
in-process :class:`harness_builtin.ScriptedModelClient` (no HTTP; ``record_requests=False``,
since the test double's log of requests, each holding the history as sent, is itself quadratic
in memory), on the core's default plugins and the built-in harness's only, ``N`` model steps with one
call each, then a final answer. Timed with ``time.process_time`` (CPU time of this process:
the run is single-process and CPU-bound, so it measures the same thing as wall time, without
the machine's load). Reported: CPU µs per call at 100 and at 3,000 calls, and their ratio
(goal ≤ 1.2: no term that grows with the history).

    uv run python -m bench.bench_linear_cost [--large N] [--repeat R]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import anyio
from harness_builtin import ScriptedModelClient, create_builtin_adapter

from bench._rows import Row, format_table, median
from bench.bench_builtin_overhead import core_plugins
from harness_core import LocalSandbox, define_harness_tool
from harness_core.agent.harness_agent import HarnessAgent
from harness_core.testing import ModelTurn, Script, ToolCallSpec

__all__ = ["ECHO", "measure", "run"]

ECHO = define_harness_tool(
    name="echo",
    description="Return the text.",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    read_only=True,
    execute=lambda value, context: value["text"],
)
"""A trivial read-only host tool: the figures are the framework's cost, not the tool's."""


async def _once(calls: int, workspace: Path) -> float:
    """CPU seconds of one ``generate`` with ``calls`` single-call steps."""
    script = Script.of(*[ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": f"c{i}"})]) for i in range(calls)], "done")
    agent = HarnessAgent(
        harness=create_builtin_adapter(model=ScriptedModelClient(script, record_requests=False), max_steps=calls + 5,
                                       max_tool_calls=calls + 5),
        tools=[ECHO],
        include_plugin_tools=False,
        plugin_manager=core_plugins(),
    )
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    started = time.process_time()
    result = await agent.generate(session=session, prompt="go")
    elapsed = time.process_time() - started
    await session.destroy()
    if result.finish_reason != "stop" or len(result.all_tool_results) != calls:
        raise RuntimeError(f"run did not complete: {result.finish_reason}, {len(result.all_tool_results)} results")
    return elapsed


async def measure(calls: int, repeat: int) -> float:
    """Median CPU µs per call over ``repeat`` runs (after one warm-up run)."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        await _once(min(calls, 20), Path(tmp))
        samples = [await _once(calls, Path(tmp)) for _ in range(repeat)]
    return median(samples) / calls * 1e6


def run(quick: bool = False, large: int | None = None, repeat: int | None = None) -> list[Row]:
    """Rows: µs per call at 100 and at ``large`` calls, and the ratio (goal ≤ 1.2)."""
    large = large or (1000 if quick else 3000)
    repeat = repeat or (3 if quick else 5)
    small_us = anyio.run(measure, 100, repeat)
    large_us = anyio.run(measure, large, repeat)
    return [
        Row("linear: host call µs at 100 calls", None, small_us, "us", "cpu"),
        Row(f"linear: host call µs at {large} calls", None, large_us, "us", "cpu"),
        Row(f"linear: per-call {large} / 100", 1.2, large_us / small_us, "x", "cpu"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--large", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(format_table(run(large=args.large, repeat=args.repeat)))


if __name__ == "__main__":
    main()
