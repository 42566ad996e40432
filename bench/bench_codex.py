"""The Codex adapter's overhead: a bare app-server client vs HarnessAgent, on the same turns.

Run: ``uv run python bench/bench_codex.py [--turns N] [--warmup W]`` (``codex`` 0.171.0 on PATH).

Both sides drive the same real ``codex app-server`` (same flags, same ``config.toml``, same
isolated ``HOME`` / ``CODEX_HOME`` layout, ``never`` approvals) against the same scripted
Responses server on 127.0.0.1. Every turn is the same scripted exchange:

1. the model runs ``exec_command`` (``ls``) in the workspace;
2. it calls a host tool (``weather``), a dynamic tool answered by the client;
3. it answers with text.

*bare*: a minimal asyncio JSON-RPC client (``initialize``, ``thread/start`` with the dynamic
tool, ``turn/start``, answering ``item/tool/call``, reading until ``turn/completed``). When the
agent's session uses built-in approvals (an installed approval policy such as harness-rules
makes it ask even under allow-all), the bare client uses the same approval policy and accepts.
*adapter*: ``HarnessAgent(harness=codex(...))`` and ``agent.generate()`` per turn (projection
into AI SDK parts, the host tool through the core's pipeline).

Each side keeps one process and thread; the figure is the wall time of one turn (prompt sent
to turn completed), warm-up turns excluded. Sides alternate turn by turn to share drift.
Prints the median per side and the ratio adapter / bare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness_codex import codex, find_codex
from harness_codex._config import approval_and_sandbox, argv, config_toml, environment

from harness_core import HarnessAgent, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

MODEL = "gpt-5.5"
NO_RETRIES = {"model_providers.harness.request_max_retries": 0, "model_providers.harness.stream_max_retries": 0}
WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _respond(request: Any) -> Any:
    items = (request.body or {}).get("input", [])
    last_user = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
    outputs = sum(1 for item in items[last_user + 1:] if item.get("type") == "function_call_output")
    if outputs == 0:
        return ModelTurn("Looking around.", tool_calls=[ToolCallSpec("bash", {"command": "ls"})])
    if outputs == 1:
        return ModelTurn(tool_calls=[ToolCallSpec("weather", {"city": "Paris"})])
    return "Done: listed the workspace; it is 12 degrees in Paris."


def _weather(city: str) -> str:
    return f'{{"city": "{city}", "celsius": 12}}'


class Bare:
    """A minimal app-server client: the floor the adapter is measured against."""

    def __init__(self, server: ScriptedModelServer, base: Path, workspace: Path, approvals: bool) -> None:
        self.approvals = approvals
        self.settings = codex(model=MODEL, base_url=server.openai_base_url, api_key="bench", home=base,
                              codex_home=base / ".codex", cwd=workspace, config=NO_RETRIES).settings
        self.base, self.workspace, self.next_id = base, workspace, 0

    async def start(self) -> None:
        codex_home = self.base / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(config_toml(self.settings))
        path = find_codex()
        assert path is not None
        self.proc = await asyncio.create_subprocess_exec(
            *argv(path), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=environment(self.settings, self.base, codex_home),
            cwd=str(self.workspace), start_new_session=True, limit=64 * 1024 * 1024)
        await self.call("initialize", {"clientInfo": {"name": "bench", "version": "0"},
                                       "capabilities": {"experimentalApi": True}})
        await self.send({"method": "initialized"})
        policy, sandbox = approval_and_sandbox(self.approvals)
        result = await self.call("thread/start", {"cwd": str(self.workspace), "approvalPolicy": policy,
                                                  "sandbox": sandbox, "dynamicTools": [
            {"type": "function", "name": "weather", "description": "Weather for a city.",
             "inputSchema": WEATHER_SCHEMA}]})
        self.thread = result["thread"]["id"]

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        message: dict[str, Any] = json.loads(await self.proc.stdout.readline())
        return message

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        await self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = await self.read()
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result")

    async def turn(self, prompt: str) -> float:
        started = time.perf_counter()
        await self.call("turn/start", {"threadId": self.thread, "input": [{"type": "text", "text": prompt}]})
        while True:
            message = await self.read()
            if message.get("method") == "item/tool/call":
                city = message["params"]["arguments"]["city"]
                await self.send({"id": message["id"], "result": {
                    "contentItems": [{"type": "inputText", "text": _weather(city)}], "success": True}})
            elif message.get("method") == "item/commandExecution/requestApproval":
                await self.send({"id": message["id"], "result": {"decision": "accept"}})
            elif message.get("method") == "turn/completed":
                return time.perf_counter() - started

    async def close(self) -> None:
        self.proc.kill()
        await self.proc.wait()


async def main(turns: int, warmup: int) -> None:
    if find_codex() is None:
        sys.exit("bench_codex: no `codex` on PATH")
    async def execute(args: Any, _context: Any) -> str:
        return _weather(args["city"])

    weather = define_harness_tool(name="weather", description="Weather for a city.", input=WEATHER_SCHEMA,
                                  execute=execute, read_only=True)
    bare_times: list[float] = []
    agent_times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(Script(respond=_respond)) as server:
        root = Path(tmp)
        for name in ("bare", "agent"):
            (root / name / "workspace").mkdir(parents=True)
        agent = HarnessAgent(harness=codex(model=MODEL, base_url=server.openai_base_url, api_key="bench",
                                           home=root / "agent", codex_home=root / "agent" / ".codex",
                                           cwd=root / "agent" / "workspace", config=NO_RETRIES), tools=[weather])
        session = await agent.create_session()
        # An installed approval policy (harness-rules) makes the agent ask for built-ins even under
        # allow-all; the bare client then runs the same approval round trip (answering accept).
        approvals = bool(session.builtin_approvals)
        bare = Bare(server, root / "bare", root / "bare" / "workspace", approvals)
        await bare.start()
        try:
            for index in range(warmup + turns):
                bare_seconds = await bare.turn(f"turn {index}")
                started = time.perf_counter()
                result = await agent.generate(session=session, prompt=f"turn {index}")
                agent_seconds = time.perf_counter() - started
                assert result.finish_reason == "stop" and "12 degrees" in result.text, (result.finish_reason, result.error)
                if index >= warmup:
                    bare_times.append(bare_seconds)
                    agent_times.append(agent_seconds)
        finally:
            await session.destroy()
            await bare.close()
    bare_median, agent_median = statistics.median(bare_times), statistics.median(agent_times)
    print(f"turns: {turns} (+{warmup} warm-up), codex app-server, scripted Responses server, "
          f"built-in approvals {'on' if approvals else 'off'} on both sides")
    print(f"bare app-server client  median {bare_median * 1000:7.1f} ms")
    print(f"HarnessAgent (adapter)  median {agent_median * 1000:7.1f} ms")
    print(f"ratio adapter / bare    {agent_median / bare_median:.3f}  (goal <= 1.05)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Codex adapter overhead vs a bare app-server client.")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.warmup))
