"""Benchmark: harness-core's cost per host tool call against pydantic-ai's (issue 17).

One scripted conversation runs through two stacks, in one process, in paired runs:

* ``HarnessAgent`` on the built-in harness, the host tool passed as ``tools=`` (so every call
  goes through the agent's host-tool pipeline: argument validation, approval, the execution
  hooks, the ``tool-call``/``tool-result`` parts), model = the in-process
  :class:`harness_builtin.ScriptedModelClient` (no HTTP, ``record_requests=False``: the test
  double keeps no log of requests), on a plugin manager with the core's
  default plugins and the built-in harness only (no other installed plugin's hooks);
* pydantic-ai's ``Agent.run`` with an **async** ``FunctionModel`` that plays the same script
  and reports usage on every response (so pydantic-ai neither hops to a thread per step nor
  estimates tokens by rescanning the history), the tool registered with ``tool_plain``.

The conversation: ``STEPS`` model responses with ``CALLS`` calls each to a trivial read-only
tool (``echo``: returns its input; the same function in both stacks), then a final text
answer. Both models report usage on every response (10 in, 5 out), and the scripted
client streams the arguments as the JSON text it was given (a model client receives text). Shapes (steps x calls): 40x1, 100x10, 1000x1. Timed with ``time.process_time`` (CPU of
this process; both stacks are single-process and CPU-bound, so this is their wall time minus
the machine's load). A pair = one harness run then one pydantic-ai run of the same shape; the
figure per stack is the median over the pairs of CPU µs per tool call, and the ratio is the
median of the per-pair ratios ``harness / pydantic-ai``. Each timed run starts from a
collected heap (``gc.collect()`` before the clock starts, in both stacks): otherwise the
full collection that the previous run's surviving objects make due is charged to whichever
run crosses the threshold next. In the pairs it was mostly the harness run, right after
pydantic-ai's (at 100x10, 3 harness runs of 4 and 1 pydantic-ai run of 4 paid one, +160-220
µs per harness call: a walk of the whole process heap, both frameworks' modules included). Goal: ≤ 0.33 at 40x1 and at 100x10;
1000x1 is reported without a goal (pydantic-ai's own cost grows with the history there).

    uv run python -m bench.bench_builtin_overhead [--shape 40x1 --shape 100x10] [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from pathlib import Path

import anyio
import anyio.lowlevel
import harness_builtin.plugin
from harness_builtin import ScriptedModelClient, create_builtin_adapter

from bench._rows import Row, format_table, median
from harness_core import (
    HarnessAgent,
    HarnessPluginManager,
    LocalSandbox,
    create_plugin_manager,
    define_harness_tool,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec

__all__ = ["GOALS", "SHAPES", "measure", "run"]

SHAPES: tuple[tuple[int, int], ...] = ((40, 1), (100, 10), (1000, 1))
"""(model steps with tool calls, calls per step)."""

GOALS: dict[tuple[int, int], float | None] = {(40, 1): 0.33, (100, 10): 0.33, (1000, 1): None}
"""Shape -> goal for ``harness / pydantic-ai`` CPU per call (``None``: reported only)."""


def echo_value(text: str) -> str:
    """The tool's work, shared by both stacks."""
    return text


ECHO = define_harness_tool(
    name="echo",
    description="Return the text.",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    read_only=True,
    execute=lambda value, context: echo_value(value["text"]),
)


def core_plugins() -> HarnessPluginManager:
    """The core's default plugins and the built-in harness's, nothing else installed (so an
    approval policy someone installed, e.g. harness-rules, is not part of the figure)."""
    manager = create_plugin_manager(load_entry_points=False, env={}, register_core=True)
    manager.register(harness_builtin.plugin)
    return manager


def _script(steps: int, calls: int) -> Script:
    # Like pydantic-ai's model below, every response reports its usage (the scripted client
    # would otherwise estimate the input tokens itself), and the arguments are the text a
    # model streams (a model client receives text; the test double need not encode it).
    usage = {"input_tokens": 10, "output_tokens": 5}
    turns = [ModelTurn(tool_calls=[ToolCallSpec("echo", json.dumps({"text": f"s{s}c{c}"})) for c in range(calls)],
                       usage=usage)
             for s in range(steps)]
    return Script.of(*turns, ModelTurn("done", usage=usage))


async def _collected_heap() -> None:
    """Collect the heap, then let the loop run what the collection scheduled (asyncgen
    finalizers closing the previous run's generators), before a clock starts."""
    gc.collect()
    for _ in range(5):
        await anyio.lowlevel.checkpoint()


async def run_harness(steps: int, calls: int, workspace: Path) -> float:
    """CPU seconds of one ``HarnessAgent.generate`` over the script (host tool via ``tools=``)."""
    agent = HarnessAgent(
        harness=create_builtin_adapter(model=ScriptedModelClient(_script(steps, calls), record_requests=False),
                                       max_steps=steps + 5, max_tool_calls=steps * calls + 5),
        tools=[ECHO],
        include_plugin_tools=False,
        plugin_manager=core_plugins(),
    )
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    await _collected_heap()
    started = time.process_time()
    result = await agent.generate(session=session, prompt="go")
    elapsed = time.process_time() - started
    await session.destroy()
    if result.finish_reason != "stop" or len(result.all_tool_results) != steps * calls:
        raise RuntimeError(f"harness run incomplete: {result.finish_reason}, {len(result.all_tool_results)} results")
    return elapsed


async def run_pydantic_ai(steps: int, calls: int, workspace: Path) -> float:
    """CPU seconds of one pydantic-ai ``Agent.run`` with an async, usage-reporting model."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage, UsageLimits

    position = 0

    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # A running position (like ScriptedModelClient), not a rescan of ``messages``.
        nonlocal position
        step, position = position, position + 1
        usage = RequestUsage(input_tokens=10, output_tokens=5)
        if step < steps:
            return ModelResponse(parts=[ToolCallPart("echo", {"text": f"s{step}c{c}"}, tool_call_id=f"c{step}_{c}")
                                        for c in range(calls)], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    agent: Agent[None, str] = Agent(FunctionModel(model))

    @agent.tool_plain
    def echo(text: str) -> str:
        """Return the text."""
        return echo_value(text)

    await _collected_heap()
    started = time.process_time()
    result = await agent.run("go", usage_limits=UsageLimits(request_limit=steps + 5))
    elapsed = time.process_time() - started
    if result.output != "done":
        raise RuntimeError(f"pydantic-ai run incomplete: {result.output!r}")
    return elapsed


async def measure(steps: int, calls: int, repeat: int) -> tuple[float, float, float]:
    """(harness median µs/call, pydantic-ai median µs/call, median per-pair ratio) after a warm-up pair."""
    total = steps * calls
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        workspace = Path(tmp)
        await run_harness(min(steps, 10), calls, workspace)
        await run_pydantic_ai(min(steps, 10), calls, workspace)
        harness: list[float] = []
        pyd: list[float] = []
        for _ in range(repeat):
            harness.append(await run_harness(steps, calls, workspace) / total * 1e6)
            pyd.append(await run_pydantic_ai(steps, calls, workspace) / total * 1e6)
    ratios = [h / p for h, p in zip(harness, pyd, strict=True)]
    return median(harness), median(pyd), median(ratios)


def run(quick: bool = False, shapes: list[tuple[int, int]] | None = None, repeat: int | None = None) -> list[Row]:
    """Rows per shape: harness µs/call, pydantic-ai µs/call, ratio (goal ≤ 0.33 at 40x1, 100x10).

    ``quick`` skips shapes of 1,000 calls or more (pydantic-ai takes minutes there); every
    shape runs ``repeat`` pairs (5).
    """
    repeat = repeat or 5
    rows: list[Row] = []
    for steps, calls in shapes or list(SHAPES):
        if quick and steps * calls >= 1000:
            continue
        harness_us, pyd_us, ratio = anyio.run(measure, steps, calls, repeat)
        shape = f"{steps}x{calls}"
        rows.append(Row(f"overhead {shape}: harness µs/call", None, harness_us, "us", "cpu"))
        rows.append(Row(f"overhead {shape}: pydantic-ai µs/call", None, pyd_us, "us", "cpu"))
        rows.append(Row(f"overhead {shape}: harness / pydantic-ai", GOALS.get((steps, calls)), ratio, "x", "cpu"))
    return rows


def _shape(text: str) -> tuple[int, int]:
    steps, _, calls = text.partition("x")
    return int(steps), int(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shape", type=_shape, action="append", help="STEPSxCALLS (repeatable; default 40x1 100x10 1000x1)")
    parser.add_argument("--repeat", type=int, default=7, help="pairs per shape (7)")
    args = parser.parse_args()
    print(format_table(run(shapes=args.shape, repeat=args.repeat)))


if __name__ == "__main__":
    main()
