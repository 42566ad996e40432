"""A JSON-RPC client for ``codex app-server`` over stdio, in its own process group.

Wire format (codex-rs ``app-server`` README, checked against codex 0.171.0): one JSON object
per line, without a ``"jsonrpc"`` member. Requests ``{"id", "method", "params"}`` get
``{"id", "result"}`` or ``{"id", "error": {"code", "message"}}``; notifications have no
``id``; the server also sends requests (approvals, dynamic tool calls) that the client
answers with ``{"id", "result"}``.

:class:`AppServer` owns the process: it is started with ``start_new_session=True`` so
:meth:`AppServer.kill` can signal the whole process group (the CLI and every command it
spawned). Incoming notifications and server requests are queued in order as
:class:`Incoming` items; when the process exits, one :class:`Closed` item is queued.
asyncio only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

__all__ = ["AppServer", "Closed", "Incoming", "RpcError", "ServerClosedError"]

_LINE_LIMIT = 64 * 1024 * 1024


class RpcError(Exception):
    """The app-server answered a request with a JSON-RPC error.

    Attributes:
        method: the request's method; code, message: the error's.
    """

    def __init__(self, method: str, code: int | None, message: str) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method = method
        self.code = code
        self.message = message


class ServerClosedError(Exception):
    """The app-server process exited before answering."""


@attrs.frozen
class Incoming:
    """A notification (``request_id`` is ``None``) or a server request from the app-server."""

    method: str
    params: Mapping[str, Any]
    request_id: int | str | None = None


@attrs.frozen
class Closed:
    """The app-server process exited: its exit code and the tail of its stderr."""

    returncode: int | None
    stderr: str


class AppServer:
    """One ``codex app-server`` process and its JSON-RPC connection.

    Args:
        argv: the command (``[codex, "app-server", ...]``).
        env: the complete environment (nothing is inherited).
        cwd: the working directory.
        on_exit: called once the process has exited (releases what its launch holds).
    """

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path,
                 on_exit: Callable[[], None] | None = None) -> None:
        self.argv = list(argv)
        self._on_exit = on_exit
        self.env = dict(env)
        self.cwd = cwd
        self.inbox: asyncio.Queue[Incoming | Closed] = asyncio.Queue()
        self._process: asyncio.subprocess.Process | None = None
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._next_id = 0
        self._stderr: deque[str] = deque(maxlen=40)
        self._tasks: list[asyncio.Task[None]] = []
        self._closed: Closed | None = None

    @property
    def pid(self) -> int | None:
        """The process id (also the process group id), once started."""
        return None if self._process is None else self._process.pid

    @property
    def closed(self) -> Closed | None:
        """How the process ended, or ``None`` while it runs."""
        return self._closed

    async def start(self) -> None:
        """Spawn the process in a new session (its own process group).

        Raises:
            OSError: the executable cannot be started.
        """
        self._process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self.env, cwd=str(self.cwd), start_new_session=True,
            limit=_LINE_LIMIT,
        )
        self._tasks = [asyncio.create_task(self._read_stdout()), asyncio.create_task(self._read_stderr())]

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send a request and wait for its result.

        Raises:
            RpcError: the server answered with an error.
            ServerClosedError: the process exited first.
        """
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (method, future)
        message: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self._write(message)
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        await self._write(message)

    async def respond(self, request_id: int | str, result: Mapping[str, Any]) -> None:
        """Answer a server request."""
        await self._write({"id": request_id, "result": result})

    async def respond_error(self, request_id: int | str, code: int, message: str) -> None:
        """Refuse a server request with a JSON-RPC error."""
        await self._write({"id": request_id, "error": {"code": code, "message": message}})

    async def _write(self, message: Mapping[str, Any]) -> None:
        process = self._process
        if process is None or process.stdin is None or self._closed is not None:
            raise ServerClosedError("the codex app-server is not running")
        try:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ServerClosedError(f"the codex app-server closed its input: {error}") from error

    async def _read_stdout(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        try:
            while line := await stdout.readline():
                self._dispatch(line)
        finally:
            returncode = await self._process.wait()
            await asyncio.sleep(0)  # let the stderr reader catch up
            self._closed = Closed(returncode, "\n".join(self._stderr))
            if self._on_exit is not None:
                self._on_exit()
            for _, future in self._pending.values():
                if not future.done():
                    future.set_exception(ServerClosedError(
                        f"the codex app-server exited (code {returncode}) before answering"))
            self.inbox.put_nowait(self._closed)

    def _dispatch(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._stderr.append(f"unparsable output: {line[:200]!r}")
            return
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            self.inbox.put_nowait(Incoming(method, params if isinstance(params, dict) else {}, message.get("id")))
            return
        entry = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if entry is None or entry[1].done():
            return
        name, future = entry
        error = message.get("error")
        if isinstance(error, dict):
            future.set_exception(RpcError(name, error.get("code"), str(error.get("message"))))
        else:
            future.set_result(message.get("result"))

    async def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        while line := await self._process.stderr.readline():
            self._stderr.append(line.decode(errors="replace").rstrip())

    async def kill(self) -> None:
        """Kill the process group and every descendant (commands Codex started in their own
        sessions too), then reap the process. Idempotent."""
        process = self._process
        if process is None:
            return
        descendants = _descendants(process.pid) if process.returncode is None else []
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        for pid in descendants:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 10)
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5)
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()


def _descendants(root: int) -> list[int]:
    """Every live descendant of ``root``, from ``/proc`` (empty where there is no ``/proc``)."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
