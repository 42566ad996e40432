"""Long-running processes in a sandbox: ``Sandbox.spawn`` and the handle it returns.

:class:`SandboxProcess` is the protocol (stdin/stdout/stderr byte streams, ``wait``,
``kill``, ``aclose``); :class:`SpawnedProcess` implements it over an anyio process started
in its own process group, so ``kill`` ends the process and everything it started.
:func:`spawn_process` starts one and keeps it in the owner's set until it exits, so the
owner's ``stop`` can kill what is left.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, MutableSet
from pathlib import Path
from types import TracebackType
from typing import Protocol, runtime_checkable

import anyio
import anyio.abc

from harness_core.sandbox.process import kill_group

__all__ = ["SandboxProcess", "SpawnedProcess", "spawn_process"]


@runtime_checkable
class SandboxProcess(Protocol):
    """A process started by ``spawn``: its pipes, its exit, its kill.

    Attributes:
        pid: the process id on the host (for a sandboxed process, of its outermost wrapper).
        returncode: the exit status once it exited (negative: killed by that signal), else ``None``.
        stdin: bytes to the process (``aclose()`` it to send end-of-file).
        stdout / stderr: bytes from the process (``anyio.EndOfStream`` at its end).
    """

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def stdin(self) -> anyio.abc.ByteSendStream: ...

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream: ...

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream: ...

    async def wait(self) -> int:
        """Wait for the exit; returns the exit status."""
        ...

    def kill(self) -> None:
        """SIGKILL the process and everything it started. Idempotent."""
        ...

    async def aclose(self) -> None:
        """Kill (when still running), wait, and close the pipes. Idempotent."""
        ...


class SpawnedProcess:
    """A :class:`SandboxProcess` over an anyio process leading its own process group.

    Use it as an async context manager (``async with await sandbox.spawn(...) as proc``)
    to have it killed on exit from the block.
    """

    def __init__(self, process: anyio.abc.Process, running: MutableSet[anyio.abc.Process]) -> None:
        self._process = process
        self._running = running
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        if stdin is None or stdout is None or stderr is None:  # pragma: no cover - always piped
            raise RuntimeError("spawn: the process was started without pipes")
        self._stdin, self._stdout, self._stderr = stdin, stdout, stderr

    def __repr__(self) -> str:
        return f"<SpawnedProcess pid={self.pid} returncode={self.returncode}>"

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once it exited, else ``None``."""
        return self._process.returncode

    @property
    def stdin(self) -> anyio.abc.ByteSendStream:
        """The process's standard input."""
        return self._stdin

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream:
        """The process's standard output."""
        return self._stdout

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream:
        """The process's standard error."""
        return self._stderr

    async def wait(self) -> int:
        """Wait until the process exits; returns its status."""
        code = await self._process.wait()
        self._running.discard(self._process)
        return code

    def kill(self) -> None:
        """SIGKILL the whole process group. Idempotent."""
        kill_group(self._process)

    async def aclose(self) -> None:
        """Kill the group when still running, wait, close the pipes. Idempotent."""
        if self._process.returncode is None:
            kill_group(self._process)
        with anyio.CancelScope(shield=True):
            await self._process.wait()
            await self._process.aclose()
        self._running.discard(self._process)

    async def __aenter__(self) -> SpawnedProcess:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


async def spawn_process(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    running: MutableSet[anyio.abc.Process],
) -> SpawnedProcess:
    """Start ``argv`` with piped stdin/stdout/stderr in a new process group.

    Args:
        running: the owner's set of live processes (its ``stop`` kills them).

    Raises:
        FileNotFoundError / PermissionError: the program cannot be started.
    """
    process = await anyio.open_process(
        argv, cwd=cwd, env=dict(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=sys.platform != "win32",
    )
    running.add(process)
    return SpawnedProcess(process, running)
