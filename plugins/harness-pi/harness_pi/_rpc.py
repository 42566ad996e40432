"""One ``pi --mode rpc`` process: JSONL on stdin/stdout, in its own process group.

Records are split on LF only (pi's framing rule: U+2028 inside JSON strings is not a
boundary). ``response`` records resolve the command with the same ``id``; pi 0.73 answers
unknown commands without an ``id``, so an id-less response resolves the oldest pending
command of that name (or the oldest one), never hanging. Every other record goes to
``on_record``. When stdout ends, pending commands fail and ``on_exit(returncode)`` runs.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import signal
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from ._tasks import Detached, spawn

__all__ = ["PiCommandError", "PiProcess", "kill_marked"]

logger = logging.getLogger("harness_pi")

_STDERR_TAIL = 20


def _marked(marker: str, pgid: int | None) -> list[int]:
    found = []
    needle = marker.encode("utf-8")
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                fields = Path("/proc", entry, "stat").read_text().rpartition(")")[2].split()
                if len(fields) < 3 or fields[0] in ("Z", "X"):
                    continue
                in_group = pgid is not None and fields[2] == str(pgid)
                if in_group or (needle and needle in Path("/proc", entry, "environ").read_bytes().split(b"\0")):
                    found.append(int(entry))
            except OSError:
                continue
    return found


def kill_marked(marker: str) -> None:
    """SIGKILL every process whose environment holds ``marker`` (``NAME=value``)."""
    if not marker:
        return
    for pid in _marked(marker, None):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


class PiCommandError(Exception):
    """A command failed (``success: false``), timed out, or pi exited before answering."""


class _Waiter:
    def __init__(self, command: str) -> None:
        self.command = command
        self.event = anyio.Event()
        self.record: dict[str, Any] | None = None
        self.error: str | None = None


class PiProcess:
    """A running pi RPC process (see the module docs).

    Attributes:
        argv: the command line.
        returncode: the exit status once pi has exited, else ``None``.
        stderr_tail: the last lines pi wrote to stderr.
    """

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path,
                 on_record: Callable[[dict[str, Any]], None], on_exit: Callable[[int | None], None],
                 stderr: Callable[[str], None] | None = None, marker: str = "") -> None:
        self.argv = list(argv)
        self._marker = marker
        self._env = dict(env)
        self._cwd = cwd
        self._on_record = on_record
        self._on_exit = on_exit
        self._stderr = stderr
        self._process: Process | None = None
        self._pending: dict[str, _Waiter] = {}
        self._ids = itertools.count(1)
        self._write_lock = anyio.Lock()
        self._tasks: list[Detached] = []
        self.exited = anyio.Event()
        self.returncode: int | None = None
        self.stderr_tail: deque[str] = deque(maxlen=_STDERR_TAIL)

    @property
    def pid(self) -> int | None:
        """pi's process id (also its process group id)."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """True while pi has not exited."""
        return self._process is not None and not self.exited.is_set()

    async def start(self) -> None:
        """Spawn pi in a new process group and start reading it.

        Raises:
            OSError: the executable could not be started.
        """
        self._process = await anyio.open_process(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self._cwd, env=self._env, start_new_session=True,
        )
        self._tasks = [spawn(self._read_stdout()), spawn(self._read_stderr())]

    async def send(self, record: Mapping[str, Any]) -> None:
        """Write one record.

        Raises:
            PiCommandError: pi's stdin is closed.
        """
        process = self._process
        if process is None or process.stdin is None or self.exited.is_set():
            raise PiCommandError("pi is not running")
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            async with self._write_lock:
                await process.stdin.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as error:
            raise PiCommandError(f"cannot write to pi: {error}") from error

    async def request(self, command: Mapping[str, Any], timeout: float | None = 60.0) -> Any:
        """Send ``command`` with a fresh ``id`` and return the response's ``data``.

        Raises:
            PiCommandError: ``success: false`` (pi's error text), no answer within
                ``timeout`` seconds, or pi exited first.
        """
        request_id = f"harness-{next(self._ids)}"
        waiter = _Waiter(str(command.get("type", "")))
        self._pending[request_id] = waiter
        try:
            await self.send({**command, "id": request_id})
            with anyio.move_on_after(timeout):
                await waiter.event.wait()
        finally:
            self._pending.pop(request_id, None)
        if waiter.error is not None:
            raise PiCommandError(waiter.error)
        if waiter.record is None:
            raise PiCommandError(f"pi did not answer {waiter.command!r} within {timeout} s")
        if waiter.record.get("success") is not True:
            raise PiCommandError(str(waiter.record.get("error") or f"pi refused {waiter.command!r}"))
        return waiter.record.get("data")

    def group_pids(self) -> list[int]:
        """Live processes pi started, and pi: its process group plus every process carrying
        the ``marker`` environment entry (pi's tools run detached, in groups of their own,
        and inherit it). Linux ``/proc`` only; empty elsewhere."""
        return _marked(self._marker, self.pid if self.running else None)

    def kill(self) -> None:
        """SIGKILL pi's process group and every process carrying the marker, now."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        kill_marked(self._marker)

    async def close(self, grace: float = 2.0) -> None:
        """Close stdin (pi's orderly shutdown), wait ``grace`` seconds, then kill the group."""
        process = self._process
        if process is None:
            return
        if not self.exited.is_set() and process.stdin is not None:
            with contextlib.suppress(Exception):
                await process.stdin.aclose()
            with anyio.move_on_after(grace):
                await self.exited.wait()
        self.kill()
        with anyio.move_on_after(5):
            await self.exited.wait()

    # -- reading ----------------------------------------------------------------------------

    def _dispatch(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            logger.debug("pi wrote a line that is not JSON: %r", line[:200])
            return
        if not isinstance(record, dict):
            return
        if record.get("type") == "response":
            request_id = record.get("id")
            waiter = self._pending.get(request_id) if isinstance(request_id, str) else None
            if waiter is None and request_id is None:
                command = record.get("command")
                waiter = next((w for w in self._pending.values() if w.command == command and w.record is None), None)
                waiter = waiter or next((w for w in self._pending.values() if w.record is None), None)
            if waiter is not None:
                waiter.record = record
                waiter.event.set()
            return
        self._on_record(record)

    async def _read_stdout(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        buffer = bytearray()
        try:
            async for chunk in process.stdout:
                buffer += chunk
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:end]).rstrip(b"\r")
                    del buffer[: end + 1]
                    if line:
                        self._dispatch(line)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        finally:
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(10):
                    self.returncode = await process.wait()
                for waiter in self._pending.values():
                    waiter.error = f"pi exited (status {self.returncode}) before answering {waiter.command!r}"
                    waiter.event.set()
                self.exited.set()
                self._on_exit(self.returncode)

    async def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        buffer = bytearray()
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            async for chunk in process.stderr:
                buffer += chunk
                while (end := buffer.find(b"\n")) >= 0:
                    text = bytes(buffer[:end]).decode("utf-8", "replace").rstrip()
                    del buffer[: end + 1]
                    self.stderr_tail.append(text)
                    if self._stderr is not None:
                        with contextlib.suppress(Exception):
                            self._stderr(text)
