"""The host side of the command servers: one bubblewrap started once, many commands.

Starting bubblewrap costs more than 10 ms here (namespaces, mounts), far above the 3 ms a
command may add. A :class:`CommandPool` therefore keeps long-lived bubblewraps, each running
the small server of :mod:`harness_sandbox_bwrap.command_server` under the sandbox's policy,
and sends each command to an idle one (a busy pool starts another: one command per server
at a time, so concurrent commands never share a PID namespace while they run).

What each command still gets, as with one bubblewrap per command: the same mounts, network,
namespaces and dropped capabilities (the server is inside them and forks the command); its
own session and process group; its timeout; everything it started killed when it ends (the
server sweeps its namespace after every command). What changes: ``/tmp`` (a private tmpfs)
is shared by the commands one server ran, like ``/tmp`` on a real machine.

Fail closed: a server that dies (killed by a command, say) ends its command with exit code
137 and a note on stderr and is discarded; the next command starts a fresh one. A cancelled
or overdue command kills its whole server. Nothing ever runs outside bubblewrap.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

import anyio
import attrs

from harness_core import CommandResult, sanitize_text

from . import command_server
from .view import wrap_command

__all__ = ["CommandPool", "EnvBuilder", "FrozenEnv", "Served", "find_python"]

EnvBuilder = Callable[[Mapping[str, str] | None], dict[str, str]]
"""Builds a command's environment from its extra variables (``LocalSandbox.command_env``)."""

_SOURCE: Final = Path(command_server.__file__).read_text(encoding="utf-8")
_START_TIMEOUT: Final = 60.0
_GRACE: Final = 10.0
"""Seconds past a command's timeout before the host gives up on its server."""
_MAX_FRAME: Final = 1 << 20
"""Bytes of the largest frame a server may send (it sends at most 64 KiB at a time)."""
_DIED: Final = "\n[the sandbox's command server died while the command ran; its processes were killed]\n"
_PYTHONS: Final = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")


def find_python() -> str | None:
    """A system ``python3`` (mounted read-only in every sandbox) to run the server, or ``None``."""
    return next((path for path in _PYTHONS if os.access(path, os.X_OK)), None)


class ServerDied(Exception):
    """The server's stdout ended (it exited or was killed), or it broke the protocol."""


class _Server:
    """One long-lived bubblewrap running the command server.

    A plain :class:`subprocess.Popen` with its pipes read and written non-blocking through
    ``anyio.wait_readable`` / ``wait_writable``: nothing here is bound to an event loop, so
    a sandbox keeps working across ``anyio.run`` calls and holds no reference to a loop.
    """

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        assert popen.stdin is not None and popen.stdout is not None
        self.popen = popen
        self._in, self._out = popen.stdin.fileno(), popen.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()

    async def _fill(self, size: int) -> None:
        while len(self._buffer) < size:
            try:
                data = os.read(self._out, 65536)
            except BlockingIOError:
                await anyio.wait_readable(self._out)
                continue
            except OSError:
                raise ServerDied from None
            if not data:
                raise ServerDied
            self._buffer += data

    async def _send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view):]
            except BlockingIOError:
                await anyio.wait_writable(self._in)
            except OSError:
                raise ServerDied from None

    async def frame(self) -> tuple[bytes, bytes]:
        """The next ``(kind, payload)`` frame. Raises :class:`ServerDied` at end of output."""
        await self._fill(5)
        kind, (length,) = bytes(self._buffer[:1]), struct.unpack(">I", self._buffer[1:5])
        if length > _MAX_FRAME:
            raise ServerDied(f"frame of {length} bytes")
        await self._fill(5 + length)
        payload = bytes(self._buffer[5:5 + length])
        del self._buffer[:5 + length]
        return kind, payload

    async def run(self, argv: list[str], env: Mapping[str, str], cwd: str, timeout: float,
                  cap: int) -> tuple[CommandResult, bool]:
        """Send one command and collect its frames until its exit status.

        Returns:
            The result, and whether this server may serve another command (False when it
            died, sent a malformed frame or could not kill what the command left).
        """
        request = {"argv": argv, "env": dict(env), "cwd": cwd, "timeout": timeout, "cap": cap}
        out, err = bytearray(), bytearray()
        try:
            await self._send(json.dumps(request).encode() + b"\n")
            while True:
                kind, payload = await self.frame()
                if kind == b"O":
                    out += payload[:max(cap - len(out), 0)]
                elif kind == b"E":
                    err += payload[:max(cap - len(err), 0)]
                elif kind == b"X":
                    status = json.loads(payload)
                    timed_out, clean = status["timed_out"], status["clean"]
                    dropped_out, dropped_err = (int(n) for n in status["dropped"])
                    code = None if timed_out is True else int(status["code"])
                    if not isinstance(timed_out, bool) or not isinstance(clean, bool):
                        raise ServerDied("malformed status")
                    break
                else:
                    raise ServerDied(f"unexpected frame {kind!r}")
        except (ServerDied, OSError, ValueError, TypeError, KeyError):
            self.kill()
            return CommandResult(exit_code=137, stdout=sanitize_text(bytes(out)),
                                 stderr=sanitize_text(bytes(err)) + _DIED), False
        result = CommandResult(exit_code=code, stdout=_text(out, dropped_out), stderr=_text(err, dropped_err),
                               timed_out=timed_out)
        return result, clean

    @property
    def alive(self) -> bool:
        """Whether the bubblewrap is still running."""
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL the bubblewrap's process group (its PID namespace, and so every command
        process, dies with it)."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)

    def stderr_text(self) -> str:
        """What the server or bubblewrap wrote on stderr (after it exited), at most 4 KiB."""
        stream = self.popen.stderr
        if stream is None:
            return ""
        os.set_blocking(stream.fileno(), False)
        with contextlib.suppress(OSError, TypeError):
            return (stream.read(4096) or b"").decode(errors="replace").strip()
        return ""

    def reap(self) -> None:
        """Kill, wait for (SIGKILLed: at once) and close the bubblewrap and its pipes."""
        self.kill()
        with contextlib.suppress(ChildProcessError, OSError):
            self.popen.wait()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _text(data: bytearray, dropped: int) -> str:
    text = sanitize_text(bytes(data))
    return text + f"\n[output cut: {dropped} more bytes not kept]" if dropped else text


class CommandPool:
    """Long-lived command servers for one sandbox (or one restricted view of it).

    Args:
        prefix: the ``bwrap ... --`` prefix of the sandbox's policy.
        python: the ``python3`` inside the sandbox that runs the server.
        owner: the owner's repr, for messages.
    """

    def __init__(self, prefix: Sequence[str], python: str, owner: str) -> None:
        if not prefix or prefix[-1] != "--":
            raise ValueError("CommandPool: prefix must be a bwrap command ending with '--'")
        self._cwd = prefix[prefix.index("--chdir") + 1] if "--chdir" in prefix else "/"
        host_pid_ns = os.stat("/proc/self/ns/pid").st_ino
        # --as-pid-1: the server is its namespace's init, which commands cannot signal.
        self._argv = [prefix[0], "--as-pid-1", *prefix[1:], python, "-I", "-S", "-c", _SOURCE, str(host_pid_ns)]
        self._owner = owner
        self._idle: list[_Server] = []
        self._live: set[_Server] = set()
        self._closed = False


    async def _start(self) -> _Server:
        # Synchronous on purpose (one fork/exec per server, about a millisecond): nothing can
        # cancel it half-way and orphan a started bubblewrap.
        popen = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,  # noqa: ASYNC220
                                 stderr=subprocess.PIPE, start_new_session=True, env={})
        server = _Server(popen)
        self._live.add(server)
        try:
            with anyio.fail_after(_START_TIMEOUT):
                kind, payload = await server.frame()
            if kind != b"R":
                raise ServerDied(payload.decode(errors="replace") if kind == b"F" else f"first frame {kind!r}")
        except (ServerDied, TimeoutError) as error:
            self._discard(server)
            reason = str(error) or server.stderr_text() or "no message"
            raise RuntimeError(f"{self._owner}: the command server did not start ({reason})") from None
        except BaseException:  # cancelled while starting
            self._discard(server)
            raise
        return server

    def _discard(self, server: _Server) -> None:
        self._live.discard(server)
        server.reap()

    async def run(self, argv: list[str], env: Mapping[str, str], timeout: float, cap: int) -> CommandResult:
        """Run ``argv`` (no shell) on an idle server (or a new one).

        Raises:
            RuntimeError: the pool was closed, or no server could be started.
        """
        if self._closed:
            raise RuntimeError(f"{self._owner} was stopped")
        server = self._idle.pop() if self._idle else await self._start()
        reusable = False
        try:
            if self._closed:
                raise RuntimeError(f"{self._owner} was stopped")
            with anyio.move_on_after(timeout + _GRACE) as scope:
                result, reusable = await server.run(argv, env, self._cwd, timeout, cap)
            if scope.cancelled_caught:
                reusable = False
                result = CommandResult(exit_code=None, stdout="", stderr="", timed_out=True)
            return result
        finally:
            if reusable and not self._closed and server.alive:
                self._idle.append(server)
            else:
                self._discard(server)

    @property
    def server_pids(self) -> tuple[int, ...]:
        """Host PIDs of the live servers' bubblewraps (for diagnostics and tests)."""
        return tuple(server.popen.pid for server in self._live)

    def shutdown(self) -> None:
        """Kill every server now (synchronously, for finalizers); later runs raise
        ``RuntimeError``. A busy server is only killed: its command's task sees the end of
        output and reaps it (closing the pipes under that task's wait would leave it waiting).
        Idempotent."""
        self._closed = True
        idle, self._idle = self._idle, []
        for server in list(self._live):
            if server in idle:
                self._discard(server)
            else:
                server.kill()

    async def close(self) -> None:
        """:meth:`shutdown`, from async code."""
        self.shutdown()


@attrs.frozen(slots=True)
class FrozenEnv:
    """An :data:`EnvBuilder` from a snapshot (a restricted view's: no reference to the
    ``LocalSandbox`` it was taken from): the snapshot, then the command's extra variables."""

    items: tuple[tuple[str, str], ...]

    def __call__(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return {**dict(self.items), **dict(extra or {})}


@attrs.frozen(slots=True)
class Served:
    """Commands through a :class:`~harness_sandbox_bwrap.server.CommandPool` (one long-lived
    bubblewrap per concurrent command) instead of one bubblewrap per command.

    Attributes:
        pool: the servers.
        env: builds each command's environment (allowlist, no secrets, ``HOME``...).
        default_timeout: seconds when a command gives none.
        cap: bytes kept per output stream.
        shell: runs string commands with ``-c``.
    """

    pool: CommandPool
    env: EnvBuilder
    default_timeout: float
    cap: int
    shell: str

    async def run(self, command: object, *, timeout: float | None, env: Mapping[str, str] | None) -> CommandResult:
        """Check ``command`` and ``timeout`` like ``LocalSandbox.run_command``, then serve it.

        Raises:
            TypeError / ValueError: a malformed command or timeout.
            RuntimeError: the sandbox was stopped.
        """
        argv = wrap_command((), self.shell, command)
        if timeout is not None and (not isinstance(timeout, int | float) or isinstance(timeout, bool)):
            raise TypeError(f"run_command: timeout must be a number of seconds or None, got {type(timeout).__name__}")
        limit = self.default_timeout if timeout is None else float(timeout)
        if limit <= 0:
            raise ValueError(f"run_command: timeout must be positive, got {timeout!r}")
        return await self.pool.run(argv, self.env(env), limit, self.cap)
