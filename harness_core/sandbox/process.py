"""Running one command for a sandbox: argument lists, a process group, capped output, the
timeout and the kill."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, MutableSet
from pathlib import Path
from typing import Final

import anyio
import anyio.abc

from harness_core.sandbox.paths import path_text
from harness_core.sandbox.protocol import CommandResult
from harness_core.tools.output import sanitize_text

__all__ = ["build_argv", "kill_group", "run_process"]

PIPE_GRACE_SECONDS: Final = 0.5
"""Seconds output pipes held open by background processes are still read after exit."""
_READ_CHUNK: Final = 65_536


class _CappedBuffer:
    """Collects a stream's bytes up to ``cap``; counts what it drops."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = sanitize_text(bytes(self.data))
        if self.dropped:
            text += f"\n[output cut: {self.dropped} more bytes not kept]"
        return text


def build_argv(command: object, shell: str) -> list[str]:
    """The argument list for ``command``: ``[shell, "-c", command]`` for a string.

    Raises:
        TypeError: not a str or a list/tuple of ``str`` / ``os.PathLike[str]`` (naming the item).
        ValueError: an empty command line or argument list.
    """
    if isinstance(command, str):
        if not command.strip():
            raise ValueError("run_command: the command is empty")
        return [shell, "-c", command]
    if not isinstance(command, list | tuple):
        raise TypeError(
            f"run_command: command must be a str (a shell command line) or a list of str "
            f"(program and arguments), got {type(command).__name__}"
        )
    if not command:
        raise ValueError("run_command: the argument list is empty")
    argv: list[str] = []
    for index, arg in enumerate(command):
        try:
            argv.append(path_text(arg))
        except TypeError:
            raise TypeError(
                f"run_command: command[{index}] must be a str, got {type(arg).__name__} {arg!r}"
            ) from None
    return argv


async def run_process(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    limit: float,
    max_output_bytes: int,
    running: MutableSet[anyio.abc.Process],
    owner: str,
) -> CommandResult:
    """Run ``argv`` in a new process group; kill the group after ``limit`` seconds.

    Args:
        running: the set the live process is kept in while it runs (so a stop can kill it).
        owner: the sandbox's repr, for the error when ``cwd`` disappeared.

    Returns:
        The result; 127/126 with a shell-like message when the program cannot be started.

    Raises:
        NotADirectoryError: ``cwd`` no longer exists.
    """
    stdout = _CappedBuffer(max_output_bytes)
    stderr = _CappedBuffer(max_output_bytes)
    try:
        process = await anyio.open_process(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            start_new_session=sys.platform != "win32",
        )
    except (FileNotFoundError, PermissionError) as exc:
        return _not_started(exc, argv[0], cwd, owner)
    running.add(process)
    timed_out = False
    try:
        async with anyio.create_task_group() as group:
            drained = anyio.Event()
            group.start_soon(_read_both, process, stdout, stderr, drained)
            with anyio.move_on_after(limit) as scope:
                await process.wait()
            if scope.cancelled_caught:
                timed_out = True
                kill_group(process)
                await process.wait()
            with anyio.move_on_after(PIPE_GRACE_SECONDS):
                await drained.wait()
            group.cancel_scope.cancel()
    finally:
        running.discard(process)
        if process.returncode is None:
            kill_group(process)
            with anyio.CancelScope(shield=True):
                await process.wait()
        with anyio.CancelScope(shield=True):
            await process.aclose()
    return CommandResult(
        exit_code=None if timed_out else process.returncode,
        stdout=stdout.text(),
        stderr=stderr.text(),
        timed_out=timed_out,
    )


def _not_started(exc: OSError, program: str, cwd: Path, owner: str) -> CommandResult:
    """The shell-like result for a program that could not be started (127 / 126)."""
    if not cwd.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, f"{owner}: the workspace root no longer exists") from None
    if isinstance(exc, FileNotFoundError):
        return CommandResult(exit_code=127, stdout="", stderr=f"{program}: command not found\n")
    return CommandResult(exit_code=126, stdout="", stderr=f"{program}: permission denied\n")


async def _pump(stream: anyio.abc.ByteReceiveStream | None, buffer: _CappedBuffer) -> None:
    if stream is None:  # pragma: no cover - pipes are always requested
        return
    try:
        while True:
            buffer.add(await stream.receive(_READ_CHUNK))
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return


async def _read_both(
    process: anyio.abc.Process, stdout: _CappedBuffer, stderr: _CappedBuffer, drained: anyio.Event
) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_pump, process.stdout, stdout)
        group.start_soon(_pump, process.stderr, stderr)
    drained.set()


def kill_group(process: anyio.abc.Process) -> None:
    """SIGKILL ``process``'s whole process group (the process alone when that fails)."""
    if process.returncode is not None:
        return
    try:
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover
            process.kill()
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
