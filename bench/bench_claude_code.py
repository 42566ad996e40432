"""The Claude Code adapter's overhead: raw claude-agent-sdk vs HarnessAgent, side by side.

Run: ``uv run python bench/bench_claude_code.py [--runs N] [--warmup W]``

Both sides play the same scripted conversation against the same scripted Anthropic model
server on 127.0.0.1, with the same real Claude Code CLI (the one bundled in the
``claude-agent-sdk`` wheel), the same isolated ``HOME`` / ``CLAUDE_CONFIG_DIR``, the same
environment and the same built-in tool list, without permission prompts:

1. the model runs ``Bash`` (``ls``) in the workspace;
2. it writes a file with ``Write``;
3. it calls a host tool (``weather``), which runs in this process;
4. it answers with text.

*raw*: ``ClaudeSDKClient`` with partial messages, an SDK MCP server for the host tool
(``create_sdk_mcp_server``), reading messages until the ``ResultMessage``.
*agent*: ``HarnessAgent(harness=claude_code(...))``, a new session, ``agent.generate()``
(projection into AI SDK parts, the host tool through the core's pipeline), session destroyed.

Each run starts a fresh CLI process on both sides (a fresh session), so the figures include
the CLI's start-up. Runs alternate between the sides to share any drift. Prints the median
and mean wall time per conversation for each side, and the ratio agent / raw: the adapter's
overhead.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from harness_claude_code import claude_code, find_cli
from harness_claude_code._options import DEFAULT_ENV, _tool_lists

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec, make_isolated_home


def _script(workspace: Path) -> list[ModelTurn | str]:
    return [
        ModelTurn("Looking around.", tool_calls=[ToolCallSpec("bash", {"command": "ls"})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "note.txt"), "content": "hi\n"})]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__weather", {"city": "Paris"})]),
        "Done: listed, wrote note.txt, and it is 12 degrees in Paris.",
    ]


def _weather(city: str) -> str:
    return f'{{"city": "{city}", "celsius": 12}}'


async def run_raw(server: ScriptedModelServer, home: Any, workspace: Path) -> float:
    """One conversation through ClaudeSDKClient directly; returns seconds."""
    from claude_agent_sdk import (
        ClaudeAgentOptions,
        ClaudeSDKClient,
        ResultMessage,
        SdkMcpTool,
        create_sdk_mcp_server,
    )

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": _weather(str(args.get("city")))}]}

    tool = SdkMcpTool(name="weather", description="Temperature of a city.",
                      input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                      handler=handler)
    env = {**DEFAULT_ENV, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench", "HOME": str(home.path),
           "CLAUDE_CONFIG_DIR": home["CLAUDE_CONFIG_DIR"], "IS_SANDBOX": "1"}
    tools, _ = _tool_lists(None)
    options = ClaudeAgentOptions(
        cwd=str(workspace), env=env, tools=tools, permission_mode="bypassPermissions", include_partial_messages=True,
        mcp_servers={"harness": create_sdk_mcp_server("harness", tools=[tool])}, setting_sources=[],
        system_prompt={"type": "preset", "preset": "claude_code"},
    )
    started = time.perf_counter()
    async with ClaudeSDKClient(options) as client:
        await client.query("Look around, write a note, check the weather.")
        async for message in client.receive_response():
            if isinstance(message, ResultMessage) and message.is_error:
                raise RuntimeError(f"raw run failed: {message.result}")
    return time.perf_counter() - started


async def run_agent(server: ScriptedModelServer, home: Any, workspace: Path) -> float:
    """One conversation through HarnessAgent and the Claude Code adapter; returns seconds."""
    weather = define_harness_tool(
        name="weather", description="Temperature of a city.", read_only=True,
        input={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        execute=lambda input, ctx: _weather(input["city"]),
    )
    adapter = claude_code(base_url=server.base_url, api_key="bench", home=home.path,
                          config_dir=home["CLAUDE_CONFIG_DIR"], setting_sources=[])
    started = time.perf_counter()
    agent = HarnessAgent(harness=adapter, tools=[weather])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Look around, write a note, check the weather.")
    if result.finish_reason != "stop":
        raise RuntimeError(f"agent run failed: {result.finish_reason} {result.error}")
    return time.perf_counter() - started


async def main(runs: int, warmup: int) -> None:
    if find_cli() is None:
        sys.exit("no Claude Code CLI found: install claude-agent-sdk (its wheel bundles it)")
    root = Path(tempfile.mkdtemp(prefix="bench-claude-code-"))
    home = make_isolated_home(root / "home")
    timings: dict[str, list[float]] = {"raw": [], "agent": []}
    sides = {"raw": run_raw, "agent": run_agent}
    calls: dict[str, int] = {}
    for index in range(warmup + runs):
        for name, run in sides.items():
            workspace = root / f"{name}-{index}"
            workspace.mkdir()
            with ScriptedModelServer(_script(workspace.resolve())) as server:
                seconds = await run(server, home, workspace.resolve())
                calls[name] = server.model_calls
            if not (workspace / "note.txt").exists():
                raise RuntimeError(f"{name}: the conversation did not write note.txt")
            if index >= warmup:
                timings[name].append(seconds)
    print(f"Claude Code adapter overhead: {runs} runs per side (+{warmup} warm-up), "
          f"one fresh CLI process per conversation, {calls['raw']} model calls each")
    for name in ("raw", "agent"):
        values = timings[name]
        print(f"  {name:<6} median {statistics.median(values) * 1000:7.1f} ms   mean {statistics.mean(values) * 1000:7.1f} ms"
              f"   min {min(values) * 1000:7.1f} ms   max {max(values) * 1000:7.1f} ms")
    ratio = statistics.median(timings["agent"]) / statistics.median(timings["raw"])
    print(f"  ratio agent / raw (medians): {ratio:.3f}  "
          f"(overhead {(statistics.median(timings['agent']) - statistics.median(timings['raw'])) * 1000:+.1f} ms "
          "per conversation)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured conversations per side (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured conversations per side first (default 1)")
    arguments = parser.parse_args()
    anyio.run(main, arguments.runs, arguments.warmup)
