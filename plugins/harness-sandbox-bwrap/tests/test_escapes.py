"""Escape attempts against a real bubblewrap sandbox: each must fail, and the same kind of
command must work inside the workspace."""

# The tests inspect the host (files, processes) with blocking calls on purpose, between awaits.
# ruff: noqa: ASYNC220, ASYNC221, ASYNC240, ASYNC251

from __future__ import annotations

import gc
import inspect
import os
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest
from harness_sandbox_bwrap import BwrapSandbox, BwrapUnavailableError

from harness_core import LocalSandbox, Sandbox, SandboxView

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("bwrap")]

TIMEOUT = 60.0


@pytest.fixture(autouse=True, params=["command-server", "bwrap-per-command"])
def command_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every escape attempt runs through the long-lived command server and, without a
    system python3 for it, through one bwrap per command."""
    if request.param == "bwrap-per-command":
        monkeypatch.setattr("harness_sandbox_bwrap.sandbox.find_python", lambda: None)
    return str(request.param)


def connect(port: int) -> str:
    """A bash command reading one line from 127.0.0.1:port."""
    return f"exec 3<>/dev/tcp/127.0.0.1/{port} && head -n1 <&3"


async def test_it_is_a_sandbox(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    assert isinstance(sandbox, Sandbox)
    assert isinstance(sandbox.restricted(), SandboxView)
    assert sandbox.root == Path(os.path.realpath(workspace))
    await sandbox.stop()


async def test_writes_inside_the_workspace_work(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command("mkdir -p sub && echo made > sub/f.txt && ln -s sub/f.txt link && cat link",
                                       timeout=TIMEOUT)
    assert (result.exit_code, result.stdout) == (0, "made\n"), result
    assert (workspace / "sub" / "f.txt").read_text() == "made\n"
    assert await sandbox.read_text_file("link") == "made\n"
    await sandbox.write_text_file("from-host.txt", "hi\n")
    assert (await sandbox.run_command(["cat", "from-host.txt"], timeout=TIMEOUT)).stdout == "hi\n"
    await sandbox.stop()


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink-dir", "symlink-file", "mkdir-then-write"])
async def test_writing_outside_the_workspace_never_reaches_the_host(workspace: Path, outside: Path, how: str) -> None:
    commands = {
        "absolute": f"echo pwned > {outside}/pwned.txt",
        "dotdot": "echo pwned > ../outside/pwned.txt; echo pwned > ../pwned.txt",
        "symlink-dir": f"ln -s {outside} out && echo pwned > out/pwned.txt",
        "symlink-file": f"ln -s {outside}/target.txt t && echo pwned > t",
        "mkdir-then-write": f"mkdir -p {outside} && echo pwned > {outside}/pwned.txt && echo pwned > {outside}/target.txt",
    }
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command(commands[how], timeout=TIMEOUT)
    assert result.timed_out is False
    assert not (outside / "pwned.txt").exists()
    assert not (outside.parent / "pwned.txt").exists()
    assert (outside / "target.txt").read_text() == "original\n"
    await sandbox.stop()


async def test_writing_to_the_system_fails_as_a_normal_command(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command("echo pwned > /usr/pwned.txt", timeout=TIMEOUT)
    assert result.exit_code not in (0, None)
    assert "Read-only file system" in result.stderr
    assert not Path("/usr/pwned.txt").exists()
    await sandbox.stop()


async def test_host_file_operations_refuse_links_made_inside(workspace: Path, outside: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    made = await sandbox.run_command(f"ln -s {outside} out && ln -s {outside}/secret.txt s", timeout=TIMEOUT)
    assert made.exit_code == 0, made
    with pytest.raises(PermissionError):
        await sandbox.write_text_file("out/pwned.txt", "x")
    with pytest.raises(PermissionError):
        await sandbox.read_text_file("s")
    with pytest.raises(PermissionError):
        await sandbox.write_text_file("../outside/pwned.txt", "x")
    assert not (outside / "pwned.txt").exists()
    await sandbox.stop()


@pytest.mark.parametrize("target", ["secret", "home", "ssh", "this-test"])
async def test_reading_outside_the_workspace_fails(workspace: Path, outside: Path, target: str) -> None:
    path = {
        "secret": outside / "secret.txt",
        "home": Path.home(),
        "ssh": Path.home() / ".ssh",
        "this-test": Path(__file__).resolve(),
    }[target]
    if not path.exists():
        pytest.skip(f"{path} does not exist on this host, nothing to hide")
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command(f"ls -la {path} && cat {path}", timeout=TIMEOUT)
    assert result.exit_code not in (0, None)
    assert "No such file or directory" in result.stderr
    assert "TOP-SECRET-VALUE" not in result.stdout
    await sandbox.stop()


async def test_system_secrets_are_hidden(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    if Path("/etc/shadow").exists():
        shadow = await sandbox.run_command("cat /etc/shadow", timeout=TIMEOUT)
        assert "root:" not in shadow.stdout
    if Path("/etc/ssh").is_dir():
        listing = await sandbox.run_command("ls -A /etc/ssh", timeout=TIMEOUT)
        assert listing.stdout == ""
    await sandbox.stop()


async def test_secret_environment_variables_are_not_passed(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    sandbox = BwrapSandbox(workspace, env={"MINE": "given"})
    result = await sandbox.run_command("env", timeout=TIMEOUT)
    assert "sk-should-not-leak" not in result.stdout
    assert "MINE=given" in result.stdout and "HOME=/tmp/home" in result.stdout
    await sandbox.stop()


async def test_no_network_means_the_host_loopback_is_unreachable(workspace: Path, loopback_server: int) -> None:
    sandbox = BwrapSandbox(workspace, network="none")
    result = await sandbox.run_command(connect(loopback_server), timeout=TIMEOUT)
    assert result.exit_code not in (0, None)
    assert "hello-from-host" not in result.stdout
    assert "Connection refused" in result.stderr or "Network is unreachable" in result.stderr
    await sandbox.stop()


async def test_host_network_reaches_the_loopback_server(workspace: Path, loopback_server: int) -> None:
    sandbox = BwrapSandbox(workspace, network="host")
    result = await sandbox.run_command(connect(loopback_server), timeout=TIMEOUT)
    assert (result.exit_code, result.stdout) == (0, "hello-from-host\n"), result
    await sandbox.stop()


async def test_host_processes_cannot_be_signalled(workspace: Path) -> None:
    victim = subprocess.Popen(["sleep", "300"])
    try:
        sandbox = BwrapSandbox(workspace)
        result = await sandbox.run_command(f"kill -9 {victim.pid}; kill -9 -1; ls /proc | grep -c '^[0-9]'",
                                           timeout=TIMEOUT)
        assert "No such process" in result.stderr, result
        time.sleep(0.2)
        assert victim.poll() is None, "the host process was killed from inside the sandbox"
        # Inside, a process may still signal its own children.
        own = await sandbox.run_command("sleep 100 & kill -9 $! && wait $!; echo $?", timeout=TIMEOUT)
        assert own.stdout.strip() == "137", own
        await sandbox.stop()
    finally:
        victim.kill()
        victim.wait()


async def test_capabilities_are_dropped(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command("grep CapEff /proc/self/status; mount -t tmpfs none /tmp/home", timeout=TIMEOUT)
    assert "CapEff:\t0000000000000000" in result.stdout
    assert result.exit_code != 0
    await sandbox.stop()


async def test_timeout_kills_everything_the_command_started(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command("(sleep 987.654 &); sleep 60", timeout=1.0)
    assert result.timed_out and result.exit_code is None
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", "sleep 987.654"], capture_output=True, text=True, check=False)
    assert left.stdout == "", "a background process outlived the sandboxed command"
    await sandbox.stop()


async def test_missing_program_is_a_normal_failed_command(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    result = await sandbox.run_command(["no-such-program-xyz"], timeout=TIMEOUT)
    assert result.exit_code == 127 and "no-such-program-xyz" in result.stderr
    await sandbox.stop()
    with pytest.raises(RuntimeError):
        await sandbox.run_command("true")


class TestRestrictedView:
    async def test_view_reads_writes_and_runs_inside_the_same_policy(self, workspace: Path, loopback_server: int) -> None:
        sandbox = BwrapSandbox(workspace, network="none")
        view = sandbox.restricted()
        await view.write_text_file("v.txt", "via view\n")
        assert (await view.run_command("cat v.txt", timeout=TIMEOUT)).stdout == "via view\n"
        assert (await view.run_command(connect(loopback_server), timeout=TIMEOUT)).exit_code != 0
        with pytest.raises(PermissionError):
            await view.write_text_file("../escape.txt", "x")
        await sandbox.stop()

    async def test_view_cannot_stop_or_change_the_sandbox(self, workspace: Path, loopback_server: int) -> None:
        sandbox = BwrapSandbox(workspace, network="none")
        view = sandbox.restricted()
        for name in ("stop", "resolve", "restricted", "policy", "network", "__dict__"):
            assert not hasattr(view, name), name
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            view._prefix = ("true",)  # type: ignore[misc]
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            view.network = "host"  # type: ignore[attr-defined]
        # Nothing reachable from the view is the sandbox itself.
        seen: set[int] = set()
        reachable: list[object] = []
        stack: list[object] = [view]
        while stack:
            item = stack.pop()
            if id(item) in seen or isinstance(item, type | type(sys)):
                continue
            seen.add(id(item))
            reachable.append(item)
            assert item is not sandbox, "the restricted view reaches the BwrapSandbox"
            stack.extend(gc.get_referents(item))
        # The worst a host tool digging through private attributes could do: stop whatever
        # it reaches. The session's sandbox keeps working, under the same policy.
        for item in reachable:
            stop = getattr(item, "stop", None)
            if callable(stop) and inspect.iscoroutinefunction(stop):
                await stop()
        still = await sandbox.run_command("echo still here", timeout=TIMEOUT)
        assert (still.exit_code, still.stdout) == (0, "still here\n")
        assert (await sandbox.run_command(connect(loopback_server), timeout=TIMEOUT)).exit_code != 0
        assert sandbox.network == "none"
        await sandbox.stop()


class TestClearFailures:
    def test_missing_bwrap_names_what_and_how(self, workspace: Path) -> None:
        with pytest.raises(BwrapUnavailableError) as caught:
            BwrapSandbox(workspace, bwrap="/nonexistent/bwrap")
        message = str(caught.value)
        assert "not installed" in message and "apt-get install -y bubblewrap" in message

    def test_bwrap_that_cannot_make_namespaces(self, workspace: Path, tmp_path: Path) -> None:
        fake = tmp_path / "bwrap"
        fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
        fake.chmod(0o755)
        with pytest.raises(BwrapUnavailableError) as caught:
            BwrapSandbox(workspace, bwrap=str(fake))
        message = str(caught.value)
        assert "cannot create the mount, PID, IPC, network namespaces" in message
        assert "No permissions to create new namespace" in message and "bubblewrap" in message

    def test_bad_settings(self, workspace: Path, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="network must be"):
            BwrapSandbox(workspace, network="internet")  # type: ignore[arg-type]
        with pytest.raises(NotADirectoryError):
            BwrapSandbox(tmp_path / "missing")
        with pytest.raises(FileNotFoundError):
            BwrapSandbox(workspace, readable=[tmp_path / "missing"])
        with pytest.raises(TypeError):
            BwrapSandbox(workspace, writable="/opt")  # type: ignore[arg-type]


async def test_writable_and_readable_paths(workspace: Path, tmp_path: Path) -> None:
    rw = tmp_path / "rw"
    ro = tmp_path / "ro"
    rw.mkdir()
    ro.mkdir()
    (ro / "data.txt").write_text("read me\n")
    sandbox = BwrapSandbox(workspace, writable=[rw], readable=[ro])
    ok = await sandbox.run_command(f"cat {ro}/data.txt && echo w > {rw}/w.txt", timeout=TIMEOUT)
    assert ok.exit_code == 0 and ok.stdout == "read me\n", ok
    assert (rw / "w.txt").read_text() == "w\n"
    denied = await sandbox.run_command(f"echo x > {ro}/data.txt", timeout=TIMEOUT)
    assert denied.exit_code != 0 and "Read-only file system" in denied.stderr
    assert (ro / "data.txt").read_text() == "read me\n"
    await sandbox.stop()


def test_local_sandbox_really_is_unconfined(workspace: Path, outside: Path) -> None:
    """The control: the same escape works under LocalSandbox, so the tests above can fail."""
    import anyio

    async def run() -> None:
        local = LocalSandbox(workspace)
        result = await local.run_command(f"echo pwned > {outside}/pwned.txt", timeout=TIMEOUT)
        assert result.exit_code == 0
        await local.stop()

    anyio.run(run)
    assert (outside / "pwned.txt").read_text() == "pwned\n"
