"""One running Claude Code CLI process, driven through ``ClaudeSDKClient``.

A :class:`Runtime` connects the client, reads its messages in a detached task and hands
each one to ``on_message``; when the stream ends it calls ``on_exit`` with the error that
ended it (``None`` when the process was closed on purpose). :meth:`Runtime.close` and
:meth:`Runtime.kill` guarantee that no process of the tree (the CLI and the shells it
started) survives.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Final

import anyio

from ._procs import alive, child_with_env, descendants, kill_tree
from ._tasks import DetachedTask, spawn_detached

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient

__all__ = ["PROCESS_MARKER", "Runtime", "RuntimeStartError"]

PROCESS_MARKER: Final = "HARNESS_CLAUDE_CODE_PROCESS"
"""An environment variable with a random value per process: how the CLI's pid is found
among this process's children (``claude-agent-sdk`` does not expose it)."""


class RuntimeStartError(RuntimeError):
    """The Claude Code CLI could not be started; the message says why."""


class Runtime:
    """A live Claude Code CLI process.

    Args:
        options: the process options (see :func:`harness_claude_code._options.build_options`).
        on_message: called with every SDK message, in order, from the reader task.
        on_exit: called once when the message stream ends, with the exception that ended
            it, or ``None`` after :meth:`close` / :meth:`kill`.
    """

    def __init__(
        self,
        options: ClaudeAgentOptions,
        on_message: Callable[[object], None],
        on_exit: Callable[[BaseException | None], None],
    ) -> None:
        self._marker = uuid.uuid4().hex
        self._options = dataclasses.replace(options, env={**options.env, PROCESS_MARKER: self._marker})
        self._on_message = on_message
        self._on_exit = on_exit
        self._client: ClaudeSDKClient | None = None
        self._reader: DetachedTask | None = None
        self._closing = False
        self.pid: int | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        self.exit_error: BaseException | None = None
        self.exited = False

    def record_stderr(self, line: str) -> None:
        """Keep the last lines of the CLI's stderr for error reports."""
        self.stderr_tail.append(line)

    async def start(self) -> None:
        """Spawn the CLI and complete the SDK's initialize handshake.

        Raises:
            RuntimeStartError: the CLI is missing or failed to start (message included).
        """
        from claude_agent_sdk import ClaudeSDKClient, ClaudeSDKError

        client = ClaudeSDKClient(self._options)
        try:
            await client.connect()
        except (ClaudeSDKError, OSError) as error:
            tail = "; ".join(self.stderr_tail)
            raise RuntimeStartError(
                f"could not start Claude Code: {error}" + (f" (stderr: {tail})" if tail else "")
            ) from error
        self._client = client
        self.pid = child_with_env(PROCESS_MARKER, self._marker)
        self._reader = spawn_detached(self._read(client))

    async def mcp_status(self) -> dict[str, Any]:
        """The CLI's MCP server status (``get_mcp_status``); empty when not connected."""
        client = self._client
        return dict(await client.get_mcp_status()) if client is not None else {}

    async def _read(self, client: ClaudeSDKClient) -> None:
        error: BaseException | None = None
        try:
            async for message in client.receive_messages():
                self._on_message(message)
        except Exception as exc:
            error = exc
        self.exited = True
        self.exit_error = None if self._closing else error
        self._on_exit(self.exit_error)

    @property
    def running(self) -> bool:
        """True while the CLI process is alive and its stream open."""
        return self._client is not None and not self.exited and not self._closing

    async def send(self, content: str | list[dict[str, Any]], *, message_id: str | None = None) -> None:
        """Send one user message (text, or content blocks) to the CLI; ``message_id`` is its
        ``uuid``, which the ``ResultMessage`` of the CLI turn taking it in lists (:mod:`._steering`)."""
        if self._client is None:
            raise RuntimeError("Claude Code is not running")
        if isinstance(content, str) and message_id is None:
            await self._client.query(content)
            return

        async def one_message() -> AsyncIterator[dict[str, Any]]:
            message = {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None}
            yield message if message_id is None else {**message, "uuid": message_id}

        await self._client.query(one_message())

    async def interrupt(self, timeout: float) -> bool:
        """Ask the CLI to stop the current turn (it kills its tool processes); True if it answered."""
        if self._client is None or self.exited:
            return False
        with anyio.move_on_after(timeout):
            try:
                await self._client.interrupt()
            except Exception:
                return False
            return True
        return False

    def process_tree(self) -> list[int]:
        """The CLI's pid and its live descendants (empty once it is gone)."""
        if self.pid is None or not alive(self.pid):
            return []
        return [self.pid, *descendants(self.pid)]

    async def kill(self) -> None:
        """Kill the CLI and every process it started, then release the client."""
        self._closing = True
        if self.pid is not None:
            kill_tree(self.pid)
        await self._disconnect()

    async def close(self) -> None:
        """Close stdin and let the CLI exit, flushing its transcript; nothing of its tree survives.

        ``claude-agent-sdk`` waits up to 5 s for the exit, then terminates and kills the CLI;
        shells it started and left behind are killed afterwards.
        """
        self._closing = True
        if self._client is None:
            return
        stragglers = descendants(self.pid) if self.pid is not None else []
        await self._disconnect()
        if self.pid is not None and alive(self.pid):
            kill_tree(self.pid)
        for child in stragglers:
            if alive(child):
                kill_tree(child)

    async def _disconnect(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with anyio.CancelScope(shield=True), anyio.move_on_after(15), contextlib.suppress(Exception):
                await client.disconnect()
        if self._reader is not None:
            self._reader.cancel()
