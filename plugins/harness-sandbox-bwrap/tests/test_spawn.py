"""``BwrapSandbox.spawn`` and its view's: a long-running process inside bubblewrap, with
pipes, confined like ``run_command``, and gone with everything it started when closed."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import SandboxProcess

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("bwrap")]


def marked(marker: str) -> list[int]:
    """Host pids whose environment carries ``marker``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def read_all(process: SandboxProcess) -> tuple[str, str]:
    out, err = b"", b""
    with anyio.fail_after(60):
        async for chunk in process.stdout:
            out += chunk
        async for chunk in process.stderr:
            err += chunk
    return out.decode(), err.decode()


async def test_a_spawned_process_is_confined(workspace: Path, outside: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    async with await sandbox.spawn(["cat"]) as echo:
        await echo.stdin.send(b"ping\n")
        with anyio.fail_after(60):
            assert await echo.stdout.receive() == b"ping\n"
    script = (f"echo pwned > {outside}/target.txt; cat {outside}/secret.txt; ls /root; "
              "echo inside > inside.txt; echo $HOME")
    async with await sandbox.spawn(script) as shell:
        out, err = await read_all(shell)
        await shell.wait()
    assert "Read-only file system" in err or "No such file" in err, err
    assert (outside / "target.txt").read_text() == "original\n"
    assert "TOP-SECRET-VALUE" not in out
    assert out.strip().endswith("/tmp/home"), out
    assert (workspace / "inside.txt").read_text() == "inside\n"
    await sandbox.stop()


async def test_closing_ends_everything_it_started_and_stop_closes_the_rest(workspace: Path) -> None:
    sandbox = BwrapSandbox(workspace)
    view = sandbox.restricted()
    for owner in ("sandbox", "view"):
        marker = f"HARNESS_TEST_MARK={uuid.uuid4().hex}"
        name, value = marker.split("=")
        spawn = sandbox.spawn if owner == "sandbox" else view.spawn  # type: ignore[attr-defined]
        process = await spawn("sleep 300 & sleep 300 & echo started; wait", env={name: value})
        with anyio.fail_after(60):
            assert await process.stdout.receive() == b"started\n"
        assert len(marked(marker)) >= 2
        if owner == "sandbox":
            await process.aclose()
        else:
            await sandbox.stop()
            with anyio.fail_after(30):
                await process.wait()
        with anyio.fail_after(10):
            for _ in range(1000):
                if not marked(marker):
                    break
                await anyio.sleep(0.05)
        assert not marked(marker)
