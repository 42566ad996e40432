"""``Sandbox.spawn``: a long-running process with piped stdin/stdout/stderr, killed with
everything it started by ``aclose``, by the sandbox's ``stop`` and, for processes host tools
spawned through the restricted view, when the session is destroyed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    SandboxProcess,
    define_harness_tool,
)
from harness_core.sandbox import kill_spawned, restricted_view
from harness_core.testing import ModelTurn, ToolCallSpec

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def gone(pid: int) -> bool:
    """True once ``pid`` has died (SIGKILL delivery and reaping take a moment)."""
    for _ in range(500):
        if not alive(pid):
            break
        await anyio.sleep(0.02)
    return not alive(pid)


async def read_line(stream: Any) -> bytes:
    data = b""
    with anyio.fail_after(30):
        while not data.endswith(b"\n"):
            data += await stream.receive()
    return data


async def child_pid(process: SandboxProcess) -> int:
    """The pid a ``sh -c 'sleep 300 & echo $!; wait'`` process printed."""
    return int((await read_line(process.stdout)).strip())


async def test_spawn_talks_through_its_pipes(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path)
    async with await sandbox.spawn(["cat"]) as process:
        assert isinstance(process, SandboxProcess)
        await process.stdin.send(b"hello\n")
        assert await read_line(process.stdout) == b"hello\n"
        await process.stdin.aclose()
        assert await process.wait() == 0
    async with await sandbox.spawn("echo $PWD; echo oops >&2; exit 3") as shell:
        assert (await read_line(shell.stdout)).strip() == str(sandbox.root).encode()
        assert await read_line(shell.stderr) == b"oops\n"
        assert await shell.wait() == 3
    await sandbox.stop()


async def test_aclose_and_stop_kill_the_whole_group(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path)
    first = await sandbox.spawn("sleep 300 & echo $!; wait")
    pid = await child_pid(first)
    await first.aclose()
    assert first.returncode is not None and await gone(pid)
    second = await sandbox.spawn("sleep 300 & echo $!; wait")
    pid = await child_pid(second)
    await sandbox.stop()
    with anyio.fail_after(10):
        await second.wait()
    assert await gone(pid)
    with pytest.raises(RuntimeError, match="stopped"):
        await sandbox.spawn(["true"])


async def test_processes_spawned_through_a_view_end_with_kill_spawned(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path)
    view = restricted_view(sandbox.restricted())
    process = await view.spawn("sleep 300 & echo $!; wait")  # type: ignore[attr-defined]
    pid = await child_pid(process)
    assert await kill_spawned(view) == 1
    assert await gone(pid)
    assert await kill_spawned(view) == 0
    await sandbox.stop()


async def test_the_session_kills_what_a_host_tool_spawned(scripted_model_server: Any, tmp_path: Path) -> None:
    pids: list[int] = []

    async def start_server(tool_input: dict[str, Any], ctx: Any) -> str:
        process = await ctx.sandbox.spawn("sleep 300 & echo $!; wait")
        pids.append(await child_pid(process))
        return "started"

    tool = define_harness_tool(name="start_server", description="Start a long-running server.",
                               input={"type": "object", "properties": {}}, execute=start_server)
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("start_server", {})]), "done"])
    agent = HarnessAgent(harness="builtin", tools=[tool], include_plugin_tools=False, permission_mode="allow-all",
                         harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                          "api_key": "k", "max_retries": 0})
    sandbox = LocalSandbox(tmp_path)
    async with await agent.create_session(sandbox=sandbox) as session:
        result = await agent.generate(session=session, prompt="go")
        assert result.finish_reason == "stop", result.parts
        assert pids and alive(pids[0])
    assert await gone(pids[0])  # destroyed with the session; the sandbox (the caller's) lives on
    assert (await sandbox.run_command(["true"])).exit_code == 0
    await sandbox.stop()
