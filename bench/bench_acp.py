"""The ACP adapter's overhead: a bare agent-client-protocol client vs HarnessAgent, same turn.

Run: ``uv run python bench/bench_acp.py [--agent codex-acp|pi-acp] [--turns N] [--warmup W]``
(with the pinned runtimes on ``PATH``).

Both sides drive the same real agent (codex-acp by default), launched the same way (the
profile's argv, environment and config written for the same scripted model server on
127.0.0.1), in their own process, with one ACP session each. One scripted turn: the model
runs a shell command (``echo bench``), then answers with text.

*bare*: ``acp.connect_to_agent`` with a minimal client that collects ``session/update``
notifications; a turn is ``session/prompt`` until its response.
*adapter*: ``HarnessAgent(harness=acp(...))`` on an isolated plugin manager (no tool packs,
no policies: the same agent flags as the bare side), one session; a turn is
``agent.generate()``: projection into AI SDK parts, tool bookkeeping, the core's pipeline.

The scripted server runs in a child process, so neither side shares the GIL with it.
Process start-up and the handshake are outside the timed region on both sides; turns
alternate between the sides to share drift. Prints the median and mean turn time of each
side and the ratio adapter / bare (goal: <= 1.05).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness_acp import PROFILES, LaunchRequest, acp
from harness_acp import plugin as acp_plugin
from harness_acp._profiles import isolated_environ

from harness_core import HarnessAgent, LocalSandbox, create_plugin_manager
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec


def respond(request: Any) -> Any:
    """Each prompt: a shell command, then (after its result) the answer."""
    if request.is_side_request:
        return None
    last = request.messages[-1] if request.messages else None
    if last is not None and last.role == "tool":
        return "Done: the command printed bench."
    return ModelTurn("Running it.", tool_calls=[ToolCallSpec("bash", {"command": "echo bench"})])


class _Collector:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        import acp as sdk
        from acp.schema import AllowedOutcome

        allow = next(o.option_id for o in options if str(getattr(o.kind, "value", o.kind)) == "allow_once")
        return sdk.RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow))

    def on_connect(self, conn: Any) -> None:
        pass


class Bare:
    """The agent through the SDK alone."""

    def __init__(self, agent: str, base_url: str, workspace: Path, scratch: Path) -> None:
        profile = PROFILES[agent]
        launch = profile.launch(LaunchRequest(command=profile.command, scratch=scratch, builtin_approvals=False,
                                              base_url=base_url, model="fake-model", home=scratch / "home"))
        self.argv, self.env, self.workspace = launch.argv, isolated_environ(launch, {}), workspace

    async def start(self) -> None:
        import acp as sdk

        self.process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=self.env, cwd=str(self.workspace), start_new_session=True,
            limit=50 * 1024 * 1024)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.client = _Collector()
        self.conn = sdk.connect_to_agent(self.client, self.process.stdin, self.process.stdout)
        await self.conn.initialize(protocol_version=sdk.PROTOCOL_VERSION)
        self.session_id = (await self.conn.new_session(cwd=str(self.workspace), mcp_servers=[])).session_id

    async def turn(self) -> float:
        import acp as sdk

        started = time.perf_counter()
        response = await self.conn.prompt(session_id=self.session_id, prompt=[sdk.text_block("Run it.")])
        elapsed = time.perf_counter() - started
        assert str(response.stop_reason).endswith("end_turn"), response
        return elapsed

    async def close(self) -> None:
        import os
        import signal

        await self.conn.close()
        os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()


class Adapted:
    """The same agent through HarnessAgent."""

    def __init__(self, agent: str, base_url: str, workspace: Path, scratch: Path) -> None:
        manager = create_plugin_manager(load_entry_points=False, plugins=[acp_plugin])
        adapter = acp(agent=agent, base_url=base_url, model="fake-model", home=scratch / "home")
        self.agent = HarnessAgent(harness=adapter, plugin_manager=manager)
        self.workspace = workspace

    async def start(self) -> None:
        self.session = await self.agent.create_session(sandbox=LocalSandbox(self.workspace))

    async def turn(self) -> float:
        started = time.perf_counter()
        result = await self.agent.generate(session=self.session, prompt="Run it.")
        elapsed = time.perf_counter() - started
        assert result.finish_reason == "stop" and "bench" in str(result.all_tool_results[0].output), result.error
        return elapsed

    async def close(self) -> None:
        await self.session.destroy()


def _serve(queue: Any) -> None:
    server = ScriptedModelServer(respond).start()
    queue.put(server.openai_base_url)
    threading.Event().wait()


async def main(agent: str, turns: int, warmup: int) -> None:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_serve, args=(queue,), daemon=True)
    child.start()
    base_url = queue.get(timeout=60)
    try:
        await _compare(agent, base_url, turns, warmup)
    finally:
        child.terminate()
        child.join(5)


async def _compare(agent: str, base_url: str, turns: int, warmup: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-acp-"))
    sides: dict[str, Any] = {}
    for name, kind in (("bare", Bare), ("adapter", Adapted)):
        workspace = root / name / "ws"
        workspace.mkdir(parents=True)
        sides[name] = kind(agent, base_url, workspace, root / name)
        await sides[name].start()
    times: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for index in range(warmup + turns):
            order = list(sides) if index % 2 == 0 else list(reversed(sides))
            for name in order:
                elapsed = await sides[name].turn()
                if index >= warmup:
                    times[name].append(elapsed)
    finally:
        for side in sides.values():
            await side.close()
    for name, values in times.items():
        print(f"{name:8} median {statistics.median(values) * 1000:8.1f} ms   "
              f"mean {statistics.mean(values) * 1000:8.1f} ms   ({len(values)} turns)")
    ratio = statistics.median(times["adapter"]) / statistics.median(times["bare"])
    print(f"ratio adapter / bare (medians): {ratio:.3f}  (goal <= 1.05)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--agent", default="codex-acp", choices=sorted(PROFILES))
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.agent, args.turns, args.warmup))
    sys.exit(0)
