"""Benchmark: 500 concurrent sessions on the built-in harness in one process (issue 17).

One ``HarnessAgent`` on the built-in harness (host tool ``echo`` passed as ``tools=``, model =
the in-process :class:`harness_builtin.ScriptedModelClient`, the core's default plugins and
the built-in harness's only). ``N`` sessions are opened, then every session runs one turn at
the same time (one task each, in one task group): a tool call to ``echo``, then a text answer.
Reported:

* completion: sessions whose turn finished with ``stop`` and one tool result, of ``N``;
* total time of the concurrent turns (wall and CPU of this process);
* KB per idle session: traced memory (``tracemalloc``, Python allocations) held per open
  session, fresh (after ``create_session``) and after its turn, measured in a second pass
  with tracing on (tracing slows the run, so the times come from the first pass). The
  scripted client keeps no log of requests (``record_requests=False``: a test double's
  record); everything the agent, the sessions and the adapter keep is counted.
  Goal: ≤ 100 KB per session after a turn.

    uv run python -m bench.bench_sessions [--sessions 500]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path

import anyio
from harness_builtin import ScriptedModelClient, create_builtin_adapter

from bench._rows import Row, format_table
from bench.bench_builtin_overhead import ECHO, core_plugins
from harness_core import HarnessAgent, HarnessSession, LocalSandbox
from harness_core.testing import ModelTurn, Script, ToolCallSpec

__all__ = ["measure", "run"]

GOAL_KB = 100.0


def _agent() -> tuple[HarnessAgent, ScriptedModelClient]:
    client = ScriptedModelClient(Script.of(ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": "hi"})]), "done"),
                                 record_requests=False)
    agent = HarnessAgent(harness=create_builtin_adapter(model=client), tools=[ECHO], include_plugin_tools=False,
                         plugin_manager=core_plugins())
    return agent, client


async def _turns(agent: HarnessAgent, sessions: list[HarnessSession]) -> int:
    """Run one turn on every session at once; the number that completed."""
    done = 0

    async def one(session: HarnessSession) -> None:
        nonlocal done
        result = await agent.generate(session=session, prompt="go")
        if result.finish_reason == "stop" and len(result.all_tool_results) == 1:
            done += 1

    async with anyio.create_task_group() as tg:
        for session in sessions:
            tg.start_soon(one, session)
    return done


async def _timed(count: int, workspace: Path) -> tuple[int, float, float]:
    """(completed, wall s, CPU s) of ``count`` concurrent turns (sessions opened beforehand)."""
    agent, _client = _agent()
    sessions = [await agent.create_session(sandbox=LocalSandbox(workspace)) for _ in range(count)]
    wall, cpu = time.perf_counter(), time.process_time()
    done = await _turns(agent, sessions)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    for session in sessions:
        await session.destroy()
    return done, wall, cpu


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def _memory(count: int, workspace: Path) -> tuple[float, float]:
    """(KB per fresh session, KB per idle session after one turn), traced."""
    agent, _client = _agent()
    warm = await agent.create_session(sandbox=LocalSandbox(workspace))  # imports, caches, first-use state
    await _turns(agent, [warm])
    tracemalloc.start()
    try:
        base = _traced()
        sessions = [await agent.create_session(sandbox=LocalSandbox(workspace)) for _ in range(count)]
        fresh = _traced()
        await _turns(agent, sessions)
        after = _traced()
    finally:
        tracemalloc.stop()
    for session in [warm, *sessions]:
        await session.destroy()
    return (fresh - base) / count / 1024, (after - base) / count / 1024


async def measure(count: int) -> dict[str, float]:
    """The figures for ``count`` sessions (see the module docs)."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        workspace = Path(tmp)
        done, wall, cpu = await _timed(count, workspace)
        fresh_kb, idle_kb = await _memory(count, workspace)
    return {"completed": done, "wall": wall, "cpu": cpu, "fresh_kb": fresh_kb, "idle_kb": idle_kb}


def run(quick: bool = False, sessions: int | None = None) -> list[Row]:
    """Rows: completion, total time, KB per session fresh and after a turn (goal ≤ 100 KB)."""
    count = sessions or 500
    figures = anyio.run(measure, count)
    return [
        Row(f"sessions: completed of {count}", None, figures["completed"], "n", "count"),
        Row(f"sessions: {count} concurrent turns, wall", None, figures["wall"] * 1000, "ms", "wall"),
        Row(f"sessions: {count} concurrent turns, CPU", None, figures["cpu"] * 1000, "ms", "cpu"),
        Row("sessions: KB per fresh session", GOAL_KB, figures["fresh_kb"], "KB", "mem"),
        Row("sessions: KB per idle session after a turn", GOAL_KB, figures["idle_kb"], "KB", "mem"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=500)
    args = parser.parse_args()
    print(format_table(run(sessions=args.sessions)))


if __name__ == "__main__":
    main()
