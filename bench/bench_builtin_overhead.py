"""Benchmark: the framework's own overhead per tool call on the built-in harness.

One scripted conversation runs through three stacks, in one process and one run:

* ``HarnessAgent`` on the built-in harness (the public API: agent, slice driver, parts,
  approvals pipeline, the built-in model loop), model = the in-process
  :class:`harness_builtin.ScriptedModelClient` (no HTTP);
* the built-in adapter alone, driven through the adapter protocol (no agent);
* pydantic-ai's ``Agent.run`` with ``pydantic_ai.models.function.FunctionModel`` playing
  the same script.

The conversation: ``STEPS`` model responses with ``CALLS`` tool calls each to a trivial
read-only tool (``echo``: returns its input; the same function in every stack), then a
final text answer. Every figure is wall time divided by the number of tool calls, so it
includes one model round per ``CALLS`` calls: the harness's overhead, not the tool's. The
workspace snapshots for ``fileChange`` parts only run around ``bash``, so they are not
part of these figures.

Run: ``uv run python bench/bench_builtin_overhead.py`` (``--steps``, ``--calls``,
``--repeat``). It prints µs per tool call for each stack and the ratio to pydantic-ai.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from harness_builtin import ScriptedModelClient, create_builtin_adapter

from harness_core import LocalSandbox, PromptRequest, StartRequest, TurnEnd, define_harness_tool
from harness_core.agent.harness_agent import HarnessAgent
from harness_core.testing import ModelTurn, Script, ToolCallSpec


def echo_value(text: str) -> str:
    """The tool's work, shared by every stack."""
    return text


ECHO = define_harness_tool(
    name="echo",
    description="Return the text.",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    read_only=True,
    execute=lambda value, context: echo_value(value["text"]),
)


def harness_script(steps: int, calls: int) -> Script:
    turns = [ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": f"s{s}c{c}"}) for c in range(calls)])
             for s in range(steps)]
    return Script.of(*turns, "done")


async def run_agent(steps: int, calls: int, workspace: Path) -> float:
    agent = HarnessAgent(
        harness=create_builtin_adapter(model=ScriptedModelClient(harness_script(steps, calls)),
                                       extra_tools={"echo": ECHO}, max_steps=steps + 5,
                                       max_tool_calls=steps * calls + 5),
        include_plugin_tools=False,
    )
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    started = time.perf_counter()
    result = await agent.generate(session=session, prompt="go")
    elapsed = time.perf_counter() - started
    assert result.finish_reason == "stop", result.finish_reason
    assert len(result.all_tool_results) == steps * calls, len(result.all_tool_results)
    await session.destroy()
    return elapsed


async def run_adapter(steps: int, calls: int, workspace: Path) -> float:
    adapter = create_builtin_adapter(model=ScriptedModelClient(harness_script(steps, calls)),
                                     extra_tools={"echo": ECHO}, max_steps=steps + 5,
                                     max_tool_calls=steps * calls + 5)
    session = await adapter.start(StartRequest(session_id="bench", sandbox=LocalSandbox(workspace)))
    started = time.perf_counter()
    turn = await session.prompt(PromptRequest(prompt="go"))
    end: Any = None
    async for event in turn.events():
        end = event
    elapsed = time.perf_counter() - started
    assert isinstance(end, TurnEnd) and end.finish_reason == "stop", end
    await session.destroy()
    return elapsed


async def run_pydantic_ai(steps: int, calls: int, workspace: Path) -> float:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # The same position rule as the scripted servers: one step per model response so far.
        step = sum(1 for m in messages if isinstance(m, ModelResponse))
        if step < steps:
            return ModelResponse(parts=[ToolCallPart("echo", {"text": f"s{step}c{c}"}, tool_call_id=f"c{step}_{c}")
                                        for c in range(calls)])
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, str] = Agent(FunctionModel(model))

    @agent.tool_plain
    def echo(text: str) -> str:
        """Return the text."""
        return echo_value(text)

    started = time.perf_counter()
    result = await agent.run("go")
    elapsed = time.perf_counter() - started
    assert result.output == "done", result.output
    return elapsed


Runner = Callable[[int, int, Path], Awaitable[float]]


async def measure(runner: Runner, steps: int, calls: int, repeat: int, workspace: Path) -> tuple[float, float]:
    """(best, median) µs per tool call over ``repeat`` runs, after one warm-up run."""
    await runner(steps, calls, workspace)
    samples = [await runner(steps, calls, workspace) for _ in range(repeat)]
    per_call = [sample / (steps * calls) * 1e6 for sample in samples]
    return min(per_call), statistics.median(per_call)


async def main(steps: int, calls_options: list[int], repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        workspace = Path(tmp)
        print(f"built-in harness overhead per tool call: {steps} model steps, best / median of {repeat} runs")
        print(f"{'calls/step':>10} {'HarnessAgent+builtin':>22} {'builtin adapter':>17} {'pydantic-ai':>13} "
              f"{'agent/pyd-ai':>13} {'adapter/pyd-ai':>15}")
        for calls in calls_options:
            agent_best, agent_median = await measure(run_agent, steps, calls, repeat, workspace)
            adapter_best, adapter_median = await measure(run_adapter, steps, calls, repeat, workspace)
            pyd_best, pyd_median = await measure(run_pydantic_ai, steps, calls, repeat, workspace)
            print(f"{calls:>10} {agent_best:>10.0f} / {agent_median:>6.0f} µs {adapter_best:>7.0f} / {adapter_median:>5.0f} µs "
                  f"{pyd_best:>5.0f} / {pyd_median:>4.0f} µs {agent_best / pyd_best:>12.2f}x {adapter_best / pyd_best:>14.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=40, help="model responses with tool calls (40)")
    parser.add_argument("--calls", type=int, nargs="+", default=[1, 4], help="tool calls per response (1 4)")
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per figure (5)")
    args = parser.parse_args()
    anyio.run(main, args.steps, args.calls, args.repeat)
