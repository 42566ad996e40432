"""The agent process: spawned in its own process group, connected with the ACP SDK.

The agent runs with ``start_new_session=True`` so that it and everything it starts (the
codex-acp npm wrapper's native binary, tool commands, MCP servers) share one process
group, which :meth:`AgentProcess.kill` signals as a whole: nothing is orphaned.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

__all__ = ["AgentProcess", "AgentStartError", "group_alive"]

_BUFFER: Final = 50 * 1024 * 1024
_TERM_GRACE: Final = 1.0


class AgentStartError(RuntimeError):
    """The agent could not be started (missing executable, exited during the handshake)."""


def group_alive(pgid: int) -> bool:
    """True while any process of process group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class AgentProcess:
    """One running ACP agent and its client connection.

    Attributes:
        conn: the SDK's ``ClientSideConnection`` (``initialize``, ``new_session``, ``prompt``...).
        pid: the agent's pid, also its process group id.
        stderr_tail: the last lines the agent wrote to stderr.
        exit_code: the exit status once it exited, else ``None``.
    """

    def __init__(self, process: asyncio.subprocess.Process, conn: ClientSideConnection,
                 stderr: Callable[[str], None] | None, on_exit: Callable[[], None] | None = None) -> None:
        self._process = process
        self._on_exit = on_exit
        self.conn = conn
        self.pid = process.pid
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_cb = stderr
        self.exit_code: int | None = None
        self.exited = asyncio.Event()
        self._tasks = [asyncio.ensure_future(self._read_stderr()), asyncio.ensure_future(self._watch())]

    @classmethod
    async def spawn(cls, argv: tuple[str, ...], env: Mapping[str, str], cwd: Path, client: Any,
                    stderr: Callable[[str], None] | None = None,
                    on_exit: Callable[[], None] | None = None) -> AgentProcess:
        """Start ``argv`` in a new process group and connect an ACP client to its stdio.

        ``on_exit`` runs once the agent has exited (or could not be started): it releases
        what the launch holds on the host (a sandbox's loopback bridge).

        Raises:
            AgentStartError: the executable cannot be started.
        """
        import acp

        try:
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=dict(env), cwd=str(cwd), start_new_session=True, limit=_BUFFER,
            )
        except OSError as error:
            if on_exit is not None:
                on_exit()
            raise AgentStartError(f"cannot start the ACP agent {argv[0]!r}: {error}") from error
        assert process.stdin is not None and process.stdout is not None
        conn = acp.connect_to_agent(client, process.stdin, process.stdout)
        return cls(process, conn, stderr, on_exit)

    @property
    def running(self) -> bool:
        """True until the agent process exited."""
        return not self.exited.is_set()

    async def _read_stderr(self) -> None:
        stream = self._process.stderr
        if stream is None:
            return
        while True:
            try:
                line = await stream.readline()
            except (ValueError, OSError):
                continue
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip("\n")
            self.stderr_tail.append(text)
            if self._stderr_cb is not None:
                with contextlib.suppress(Exception):
                    self._stderr_cb(text)

    async def _watch(self) -> None:
        self.exit_code = await self._process.wait()
        # whatever the agent left running in its group (tool commands, MCP servers) goes too
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        if self._on_exit is not None:
            self._on_exit()
        self.exited.set()

    def describe_exit(self) -> str:
        """``"exited with status 1 (stderr: ...)"`` for error messages."""
        status = f"exited with status {self.exit_code}" if self.exit_code is not None else "stopped responding"
        tail = "; ".join(line for line in self.stderr_tail if line.strip())[-1500:]
        return status + (f" (stderr: {tail})" if tail else "")

    async def kill(self) -> None:
        """Close the connection and kill the whole process group (SIGTERM, then SIGKILL). Idempotent."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
            if sig is signal.SIGTERM:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.exited.wait(), _TERM_GRACE)
        # the group leader is gone; stragglers of the group get SIGKILL above
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.exited.wait(), 5.0)
        for _ in range(40):
            if not group_alive(self.pid):
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            await asyncio.sleep(0.05)
        for task in self._tasks:
            task.cancel()
