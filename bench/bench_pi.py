"""The pi adapter's overhead: a bare pi RPC client vs HarnessAgent, side by side.

Run: ``uv run python bench/bench_pi.py [--turns N] [--cold N]``

Both sides drive real pi (``pi --mode rpc``, pi 1.x on PATH) against the same scripted
OpenAI Chat Completions server on 127.0.0.1, with the same ``models.json`` and the same
isolation (temporary ``HOME`` / ``PI_CODING_AGENT_DIR``, ``PI_OFFLINE=1``). Each turn is the
same scripted exchange: the model runs ``bash`` (``echo hi``), reads the result, answers.

*bare*: a minimal asyncio client: spawn pi, write ``{"type": "prompt"}``, read JSONL until
``agent_settled``.
*agent*: ``HarnessAgent(harness=pi(...))`` with ``permission_mode="allow-all"``,
``agent.generate()`` per turn (events projected to parts), on a plugin manager holding only
the core and harness-pi, so no approval is needed and pi runs the built-in itself: the same
work as the bare client. A third line, *gated*, is the agent with every built-in call
asked through the extension's gate (what happens when an approval policy plugin such as
harness-rules is installed): one host round trip per tool call, shown for information.

Turns run in one warm pi process per side (pi's own per-session start-up is measured
separately), alternating between the sides to share any drift. Prints the median turn time
of each side and the ratio agent / bare (goal <= 1.05), then the cold start: spawn to the
first ``get_state`` answer, in ms (median over ``--cold`` spawns), bare and through the adapter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import harness_pi.plugin
from harness_pi import PiSession, pi

from harness_core import HarnessAgent, LocalSandbox, create_plugin_manager, hookimpl
from harness_core.testing import ModelRequest, ModelTurn, ScriptedModelServer, ToolCallSpec


def respond(request: ModelRequest) -> ModelTurn:
    """Every prompt: one bash call, then an answer after its result."""
    last = request.messages[-1] if request.messages else None
    if last is not None and last.role == "tool":
        return ModelTurn("Done: it said hi.")
    return ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo hi"})])


class Bare:
    """A bare pi RPC client (one process)."""

    def __init__(self, server: ScriptedModelServer, root: Path, workspace: Path) -> None:
        agent_dir = root / "home" / ".pi" / "agent"
        agent_dir.mkdir(parents=True)
        models = {"providers": {"bench": {"baseUrl": server.openai_base_url, "api": "openai-completions",
                                          "apiKey": "sk-bench", "models": [{"id": "fake-model"}]}}}
        (agent_dir / "models.json").write_text(json.dumps(models))
        self.env = {"PATH": os.environ["PATH"], "HOME": str(root / "home"), "PI_CODING_AGENT_DIR": str(agent_dir),
                    "PI_OFFLINE": "1"}
        self.argv = ["pi", "--mode", "rpc", "--provider", "bench", "--model", "fake-model",
                     "--session", str(root / "session.jsonl"), "--tools", "+grep,+find,+ls"]
        self.workspace = workspace
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> float:
        """Spawn pi; returns ms until it answers ``get_state``."""
        started = time.perf_counter()
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, cwd=self.workspace, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, limit=2**24, start_new_session=True)
        await self._send({"id": "ready", "type": "get_state"})
        await self._until(lambda record: record.get("id") == "ready")
        return (time.perf_counter() - started) * 1000

    async def _send(self, record: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write((json.dumps(record) + "\n").encode())
        await self.process.stdin.drain()

    async def _until(self, done: Any) -> None:
        assert self.process is not None and self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise RuntimeError("pi exited")
            if done(json.loads(line)):
                return

    async def turn(self, prompt: str) -> float:
        started = time.perf_counter()
        await self._send({"type": "prompt", "message": prompt})
        await self._until(lambda record: record.get("type") == "agent_settled")
        return time.perf_counter() - started

    async def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            await self.process.wait()


def _agent(server: ScriptedModelServer, workspace: Path, *, gated: bool) -> HarnessAgent:
    adapter = pi(model="fake-model", base_url=server.openai_base_url, cwd=workspace)
    if gated:
        return HarnessAgent(harness=adapter, plugin_manager=create_plugin_manager(plugins=[_AskNothing()]))
    only_pi = create_plugin_manager(load_entry_points=False, plugins=[harness_pi.plugin])
    return HarnessAgent(harness=adapter, plugin_manager=only_pi)


class _AskNothing:
    """An approval policy with no opinion: its presence makes the core gate every built-in."""

    @hookimpl
    def harness_approve_call(self, call: Any, context: Any) -> None:
        return None


async def adapter_cold(server: ScriptedModelServer, workspace: Path) -> float:
    """ms from the adapter spawning pi to pi's first ``get_state`` answer."""
    session = await _agent(server, workspace, gated=False).create_session(sandbox=LocalSandbox(workspace))
    try:
        pi_session = session.adapter_session
        assert isinstance(pi_session, PiSession)
        started = time.perf_counter()
        await pi_session.warm_up()
        return (time.perf_counter() - started) * 1000
    finally:
        await session.destroy()


async def _timed_turn(agent: HarnessAgent, session: Any, prompt: str) -> float:
    started = time.perf_counter()
    result = await agent.generate(session=session, prompt=prompt)
    elapsed = time.perf_counter() - started
    assert result.finish_reason == "stop", result.error
    assert result.tool_calls and not result.approval_requests
    return elapsed


async def main(turns: int, cold: int, version: str) -> None:
    if shutil.which("pi") is None:
        raise SystemExit("pi is not on PATH (export PATH=.ci/runtimes/node_modules/.bin:$PATH)")
    root = Path(tempfile.mkdtemp(prefix="bench-pi-"))
    workspace = root / "workspace"
    workspace.mkdir()
    with ScriptedModelServer(respond) as server:
        bare = Bare(server, root / "bare", workspace)
        await bare.start()
        agent, gated = _agent(server, workspace, gated=False), _agent(server, workspace, gated=True)
        session = await agent.create_session(sandbox=LocalSandbox(workspace))
        gated_session = await gated.create_session(sandbox=LocalSandbox(workspace))
        bare_times: list[float] = []
        agent_times: list[float] = []
        gated_times: list[float] = []
        try:
            for index in range(turns + 2):
                prompt = f"turn {index}: say hi"
                seconds = await bare.turn(prompt)
                elapsed = await _timed_turn(agent, session, prompt)
                gated_elapsed = await _timed_turn(gated, gated_session, prompt)
                if index >= 2:  # two warm-up turns per side
                    bare_times.append(seconds)
                    agent_times.append(elapsed)
                    gated_times.append(gated_elapsed)
        finally:
            await session.destroy()
            await gated_session.destroy()
            await bare.close()
        bare_cold, agent_cold = [], []
        for index in range(cold):
            side = Bare(server, root / f"cold-{index}", workspace)
            bare_cold.append(await side.start())
            await side.close()
            agent_cold.append(await adapter_cold(server, workspace))
    shutil.rmtree(root, ignore_errors=True)
    bare_median, agent_median = statistics.median(bare_times), statistics.median(agent_times)
    print(f"pi {version}, {turns} warm turns per side (bash call + answer), alternating")
    print(f"  bare RPC client  median {bare_median * 1000:7.1f} ms  mean {statistics.mean(bare_times) * 1000:7.1f} ms")
    print(f"  HarnessAgent     median {agent_median * 1000:7.1f} ms  mean {statistics.mean(agent_times) * 1000:7.1f} ms")
    print(f"  ratio agent / bare (median): {agent_median / bare_median:.3f}  (goal <= 1.05)")
    print(f"  gated agent      median {statistics.median(gated_times) * 1000:7.1f} ms  "
          f"(every built-in asked through the gate; ratio {statistics.median(gated_times) / bare_median:.3f})")
    print(f"cold start, spawn -> first get_state answer, median of {cold}:")
    print(f"  bare {statistics.median(bare_cold):7.0f} ms   adapter {statistics.median(agent_cold):7.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--cold", type=int, default=7)
    arguments = parser.parse_args()
    pi_version = subprocess.run(["pi", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    anyio.run(main, arguments.turns, arguments.cold, pi_version)
