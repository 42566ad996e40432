"""The long-lived command server (one bubblewrap per sandbox, a server inside spawning each
command): its failure modes, each of which must fail closed, never run anything outside
bubblewrap, and leave no process behind."""

# The tests inspect the host (processes) with blocking calls on purpose, between awaits.
# ruff: noqa: ASYNC110, ASYNC221, ASYNC240, ASYNC251

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from harness_sandbox_bwrap import BwrapSandbox, SandboxPolicy, command_server
from harness_sandbox_bwrap.policy import bwrap_prefix
from harness_sandbox_bwrap.server import CommandPool, find_python

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("bwrap")]

TIMEOUT = 60.0
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp/home"}
DIED = "command server died"


def _pool(workspace: Path) -> CommandPool:
    python = find_python()
    assert python is not None
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    return CommandPool(bwrap_prefix(SandboxPolicy(workspace), bwrap), python, "test-pool")


def _host_processes(marker: str) -> str:
    return subprocess.run(["pgrep", "-f", "--", marker], capture_output=True, text=True, check=False).stdout


async def test_one_server_serves_many_commands_each_in_its_own_session(workspace: Path) -> None:
    pool = _pool(workspace)
    first = await pool.run(["sh", "-c", "echo $$ $(ps -o sid= -p $$ 2>/dev/null || cat /proc/self/stat)"],
                           ENV, TIMEOUT, 1 << 20)
    second = await pool.run(["sh", "-c", "pwd; echo $FOO"], {**ENV, "FOO": "bar"}, TIMEOUT, 1 << 20)
    assert first.exit_code == 0, first
    assert second.stdout == f"{workspace.resolve()}\nbar\n", second
    assert len(pool.server_pids) == 1, "commands did not share the long-lived server"
    await pool.close()


async def test_commands_cannot_kill_or_stop_their_server(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command("kill -9 1; kill -STOP 1; kill -INT 1; kill -9 -1; echo alive", timeout=TIMEOUT)
    assert (result.exit_code, result.stdout) == (0, "alive\n"), result
    again = await sandbox.run_command("echo next", timeout=TIMEOUT)
    assert (again.exit_code, again.stdout) == (0, "next\n"), again
    await sandbox.stop()


async def test_commands_cannot_forge_frames_or_read_the_server(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command(
        "printf 'X\\0\\0\\0\\x02{}' > /proc/1/fd/1; echo $? ; cat /proc/1/environ; echo $?; "
        "cat /proc/1/fd/0 & sleep 0.2; echo done", timeout=TIMEOUT)
    lines = result.stdout.split()
    assert lines[0] != "0" and lines[1] != "0" and lines[-1] == "done", result
    again = await sandbox.run_command(["echo", "clean"], timeout=TIMEOUT)
    assert (again.exit_code, again.stdout, again.stderr) == (0, "clean\n", ""), again
    await sandbox.stop()


async def test_what_a_command_leaves_behind_dies_before_the_next(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    await sandbox.run_command("(setsid sleep 876.5 &); nohup sleep 876.5 >/dev/null 2>&1 &", timeout=TIMEOUT)
    time.sleep(0.3)
    assert _host_processes("sleep 876.5") == ""
    inside = await sandbox.run_command("cat /proc/[0-9]*/comm", timeout=TIMEOUT)
    assert inside.exit_code == 0 and "sleep" not in inside.stdout, inside
    await sandbox.stop()


async def test_server_killed_mid_command_fails_closed_then_restarts(workspace: Path) -> None:
    pool = _pool(workspace)
    await pool.run(["true"], ENV, TIMEOUT, 1024)
    (victim,) = pool.server_pids
    result: list[object] = []

    async def long_command() -> None:
        result.append(await pool.run(["sh", "-c", "echo started; sleep 765.4"], ENV, TIMEOUT, 1024))

    async with anyio.create_task_group() as group:
        group.start_soon(long_command)
        deadline = time.monotonic() + TIMEOUT
        while _host_processes("sleep 765.4") == "" and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        os.kill(victim, signal.SIGKILL)
    (died,) = result
    assert getattr(died, "exit_code", None) == 137 and DIED in getattr(died, "stderr", ""), died
    time.sleep(0.3)
    assert _host_processes("sleep 765.4") == "", "the command outlived its killed server"
    assert victim not in pool.server_pids
    after = await pool.run(["echo", "restarted"], ENV, TIMEOUT, 1024)
    assert (after.exit_code, after.stdout) == (0, "restarted\n"), after
    assert pool.server_pids and victim not in pool.server_pids
    await pool.close()


async def test_cancelled_command_kills_its_server(workspace: Path) -> None:
    pool = _pool(workspace)
    with anyio.move_on_after(2):
        await pool.run(["sleep", "654.3"], ENV, TIMEOUT, 1024)
    time.sleep(0.3)
    assert _host_processes("sleep 654.3") == "" and pool.server_pids == ()
    await pool.close()


async def test_concurrent_commands_get_separate_servers(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    outputs: list[str] = []

    async def one(tag: str) -> None:
        outputs.append((await sandbox.run_command(f"sleep 0.5; echo {tag}", timeout=TIMEOUT)).stdout)

    async with anyio.create_task_group() as group:
        for tag in ("a", "b", "c"):
            group.start_soon(one, tag)
    assert sorted(outputs) == ["a\n", "b\n", "c\n"]
    await sandbox.stop()


async def test_stop_kills_every_server(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    results: list[object] = []

    async def running() -> None:
        results.append(await sandbox.run_command("sleep 543.2", timeout=TIMEOUT))

    async with anyio.create_task_group() as group:
        group.start_soon(running)
        deadline = time.monotonic() + TIMEOUT
        while _host_processes("sleep 543.2") == "" and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        with anyio.fail_after(TIMEOUT / 2):  # the running command ends now, not at its timeout
            await sandbox.stop()
            while not results:
                await anyio.sleep(0.05)
    assert getattr(results[0], "exit_code", 0) != 0
    time.sleep(0.3)
    assert _host_processes("sleep 543.2") == ""
    with pytest.raises(RuntimeError):
        await sandbox.run_command("true")


def _fake_server(tmp_path: Path, reply: bytes, *, hang_up: bool) -> CommandPool:
    """A pool whose "bubblewrap" is a script that says ready, then sends ``reply`` to a
    request and either stays connected (so only the frame itself can end the command) or
    hangs up."""
    script = tmp_path / "fake-bwrap"
    after = "" if hang_up else "sys.stdin.buffer.read()"
    script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(f"""
        import sys
        out = sys.stdout.buffer
        out.write(b"R\\0\\0\\0\\0"); out.flush()
        sys.stdin.buffer.readline()
        out.write({reply!r}); out.flush()
        {after}
    """))
    script.chmod(0o755)
    return CommandPool((str(script), "--"), "python3", "fake")


def _frame(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


@pytest.mark.parametrize(("reply", "hang_up"), [
    (_frame(b"Z", b"?"), False),  # unknown kind
    (b"O\xff\xff\xff\xff", False),  # a frame far larger than any the server sends
    (_frame(b"X", b"{bad}"), False),  # a status that is not JSON
    (_frame(b"X", b'{"code": 0}'), False),  # a status without its fields
    (_frame(b"X", b'{"code": 0, "timed_out": "no", "dropped": [0, 0], "clean": true}'), False),  # wrong types
    (_frame(b"X", b'{"code": "0", "timed_out": false, "dropped": [0], "clean": true}'), False),
    (b"O\0\0\0\x10only", True),  # truncated, then the server hangs up
], ids=["unknown-kind", "huge-length", "bad-json", "missing-fields", "wrong-types", "short-dropped", "truncated"])
async def test_malformed_frames_fail_closed(tmp_path: Path, reply: bytes, hang_up: bool) -> None:
    pool = _fake_server(tmp_path, reply, hang_up=hang_up)
    with anyio.fail_after(TIMEOUT):
        result = await pool.run(["true"], ENV, 5.0, 1024)
    assert result.exit_code == 137 and DIED in result.stderr, result
    assert pool.server_pids == (), "a server that sent a malformed frame was kept"
    await pool.close()


@pytest.mark.parametrize("how", ["not-pid-1", "host-namespace"])
async def test_server_refuses_to_run_where_it_could_signal_others(workspace: Path, how: str) -> None:
    # Each case runs under bubblewrap's own PID namespace, so even a broken guard harms nothing.
    python = find_python()
    bwrap = shutil.which("bwrap")
    assert python is not None and bwrap is not None
    prefix = bwrap_prefix(SandboxPolicy(workspace), bwrap)
    source = Path(command_server.__file__).read_text()
    if how == "not-pid-1":
        argv = [*prefix, python, "-I", "-S", "-c", source, "0"]
    else:  # PID 1, but told its own namespace is the host's
        argv = [prefix[0], "--as-pid-1", *prefix[1:], "/bin/sh", "-c",
                'exec "$0" -I -S -c "$1" "$(stat -L -c %i /proc/self/ns/pid)"', python, source]
    done = subprocess.run(argv, input=b'{"argv": ["true"], "env": {}, "cwd": "/", "timeout": 5, "cap": 9}\n',
                          capture_output=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 3, done
    assert done.stdout.startswith(b"F") and b"PID" in done.stdout, done.stdout


async def test_without_python_each_command_gets_its_own_bwrap(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace, command_server=False)
    result = await sandbox.run_command("kill -9 -1; echo $$", timeout=TIMEOUT)
    assert result.exit_code == 0 and result.stdout.strip().isdigit(), result
    await sandbox.stop()


def test_a_sandbox_survives_a_second_event_loop(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)

    async def once(text: str) -> str:
        return (await sandbox.run_command(["echo", text], timeout=TIMEOUT)).stdout

    assert anyio.run(once, "first") == "first\n"
    assert anyio.run(once, "second") == "second\n"
    anyio.run(sandbox.stop)


async def test_views_have_servers_of_their_own_killed_with_the_sandbox(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    view = sandbox.restricted()
    marker = f"--as-pid-1.*{workspace.resolve()}"
    await sandbox.run_command("sleep 0.01", timeout=TIMEOUT)
    first = await view.run_command("echo $HOME; kill -9 -1; kill -9 1; echo view", timeout=TIMEOUT)
    assert (first.exit_code, first.stdout) == (0, "/tmp/home\nview\n"), first
    again = await view.run_command(["cat", "/proc/1/comm"], timeout=TIMEOUT)
    assert again.stdout.startswith("python"), again  # served: PID 1 is the view's command server
    servers = _host_processes(marker).split()
    assert len(servers) == 2, servers  # the sandbox's server and the view's, one bwrap each
    await sandbox.stop()
    time.sleep(0.3)
    assert _host_processes(marker) == ""
    with pytest.raises(RuntimeError):
        await view.run_command("true")


async def test_a_dropped_view_takes_its_servers_with_it(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    marker = f"--as-pid-1.*{workspace.resolve()}"
    view = sandbox.restricted()
    assert (await view.run_command("true", timeout=TIMEOUT)).exit_code == 0
    assert len(_host_processes(marker).split()) == 1
    del view
    gc.collect()
    time.sleep(0.3)
    assert _host_processes(marker) == ""
    assert (await sandbox.run_command(["echo", "ok"], timeout=TIMEOUT)).stdout == "ok\n"
    await sandbox.stop()
