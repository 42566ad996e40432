"""Benchmark: a durable turn (harness-dbos, SQLite system database) against the same turn
run plainly, on the built-in harness.

The turn: ``STEPS`` model responses of ``CALLS`` calls each to a trivial host tool
(``echo``), then a final answer (default 10 x 10 = 100 tool calls), answered by a
:class:`harness_core.testing.ScriptedModelServer` over HTTP on 127.0.0.1 (the OpenAI wire).
Both stacks use the same agent configuration (the model client wrapped with
``durable_model``, a pass-through outside durable turns); the durable one records every model request
as a DBOS step and every host-tool execution by call id in ``harness_dbos_runtime`` (with
its start claim; SQLite, on the event loop) and publishes every part to the turn's DBOS
stream. DBOS is launched once, before timing; each durable turn
is a new workflow. Figures are medians over ``--repeat`` turns each, interleaved (plain,
durable, plain, ...) so machine load hits both alike: wall-clock time, and the process's CPU
time (every thread, DBOS's included), which load disturbs less; the load average is printed
with them (on a shared machine the wall ratio moves by +-0.3 between runs).

Run: ``uv run python bench/bench_durable.py`` (``--steps``, ``--calls``, ``--repeat``).
Prints the medians (ms per turn, wall and CPU), the ratios durable / plain (goal: wall
<= 1.5), the recorded steps per durable turn and the 1-minute load average. ``run(quick)`` returns the rows for ``python -m bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import harness_dbos
from harness_builtin import create_model_client

from harness_core import HarnessAgent, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._rows import Row

ECHO = define_harness_tool(
    name="echo",
    description="Return the text.",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=lambda value, context: value["text"],
)


def _script(steps: int, calls: int) -> Script:
    turns = [ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": f"s{s}c{c}"}) for c in range(calls)])
             for s in range(steps)]
    return Script.of(*turns, "done")


def _agent(url: str) -> HarnessAgent:
    client: Any = create_model_client("openai:scripted", base_url=url, api_key="bench", max_retries=0)
    model = harness_dbos.durable_model(client)  # a pass-through outside durable turns
    return HarnessAgent(harness="builtin", harness_options={"model": model}, tools=[ECHO],
                        include_plugin_tools=False)


async def _plain(agent: HarnessAgent) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    await session.destroy()
    assert result.finish_reason == "stop", [p.to_json() for p in result.parts if p.type == "error"]
    return time.perf_counter() - started, time.process_time() - cpu


async def _durable(durable: harness_dbos.DurableAgent) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    workflow_id = await durable.start_turn("go")
    result = await durable.result(workflow_id)
    assert result["finish_reason"] == "stop", result
    return time.perf_counter() - started, time.process_time() - cpu


def measure(steps: int, calls: int, repeat: int) -> dict[str, float]:
    """Medians (seconds) of ``repeat`` plain and durable turns, wall (``plain``,
    ``durable``, ``ratio``) and CPU (``plain_cpu``, ``durable_cpu``, ``cpu_ratio``), the
    steps per durable turn and the 1-minute load average after the run (``load``)."""
    with tempfile.TemporaryDirectory() as folder, ScriptedModelServer(_script(steps, calls)) as server:
        plain = _agent(server.openai_base_url)
        durable = harness_dbos.DurableAgent(_agent(server.openai_base_url), name="bench")
        harness_dbos.launch(directory=folder)
        try:
            async def main() -> tuple[list[tuple[float, float]], list[tuple[float, float]], int]:
                await _plain(plain)  # warm-up: imports, connections
                await _durable(durable)
                plain_times, durable_times = [], []
                for _ in range(repeat):
                    plain_times.append(await _plain(plain))
                    durable_times.append(await _durable(durable))
                from dbos import DBOS

                (last,) = await DBOS.list_workflows_async(limit=1, sort_desc=True)
                recorded = len(await DBOS.list_workflow_steps_async(last.workflow_id))
                return plain_times, durable_times, recorded

            plain_times, durable_times, recorded = asyncio.run(main())
        finally:
            harness_dbos.destroy()
    plain_median = statistics.median(wall for wall, _ in plain_times)
    durable_median = statistics.median(wall for wall, _ in durable_times)
    plain_cpu = statistics.median(cpu for _, cpu in plain_times)
    durable_cpu = statistics.median(cpu for _, cpu in durable_times)
    return {"plain": plain_median, "durable": durable_median, "ratio": durable_median / plain_median,
            "plain_cpu": plain_cpu, "durable_cpu": durable_cpu, "cpu_ratio": durable_cpu / plain_cpu,
            "steps": float(recorded), "load": os.getloadavg()[0]}


def run(quick: bool) -> list[Row]:
    """Rows for ``python -m bench``: the durable / plain ratio (goal 1.5)."""
    figures = measure(10, 10, 3 if quick else 7)
    return [Row("durable / plain turn, 100 host-tool calls", 1.5, figures["ratio"], "x", "ratio")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    figures = measure(args.steps, args.calls, args.repeat)
    total = args.steps * args.calls
    print(f"turn of {total} host-tool calls in {args.steps} model steps, {args.repeat} turns each (medians)")
    print(f"plain    {figures['plain'] * 1000:9.1f} ms wall {figures['plain_cpu'] * 1000:9.1f} ms CPU")
    print(f"durable  {figures['durable'] * 1000:9.1f} ms wall {figures['durable_cpu'] * 1000:9.1f} ms CPU"
          f"   ({int(figures['steps'])} recorded DBOS operations)")
    print(f"ratio    {figures['ratio']:9.2f} wall (goal <= 1.5) {figures['cpu_ratio']:9.2f} CPU")
    print(f"load     {figures['load']:9.2f} (1-minute load average)")


if __name__ == "__main__":
    main()
