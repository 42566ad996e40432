"""One connection from a built-in session to one MCP server (the ``mcp`` SDK's ``Client``).

:class:`McpConnection` starts a stdio server process or opens a streamable-HTTP session,
lists the server's tools, answers ``tools/call`` requests and closes the connection (a
stdio server's process is stopped). The SDK's client lives in anyio task groups that must
be entered and left by the same task, while a session's start, calls and end come from
different tasks; so each connection runs in a task of its own that holds the client open
until :meth:`McpConnection.aclose` (asyncio only, like the agent).

Error messages name the server; they never carry the values of ``env`` or ``headers``
(any such value found in a message is replaced by ``***``). Protocol source: MCP
specification, "Transports" and "Tools" (modelcontextprotocol.io).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CONNECTION_CLOSED, CallToolResult, Tool

from harness_core import McpHttpServer, McpServerConfig, McpStdioServer

__all__ = ["McpConnection", "McpServerGone"]


class McpServerGone(Exception):
    """The server stopped answering (its process died or its endpoint went away).

    Attributes:
        server: the server's name.
    """

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message)
        self.server = server


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class McpConnection:
    """A live connection to the MCP server ``name``.

    Args:
        name: the server's name (``mcp_servers`` key).
        config: its configuration.
        cwd: the working directory of a stdio server without its own ``cwd``.
        start_timeout: seconds to connect and list the tools.
    """

    def __init__(self, name: str, config: McpServerConfig, *, cwd: str | None, start_timeout: float) -> None:
        self.name = name
        self._config = config
        self._cwd = cwd
        self._start_timeout = start_timeout
        self._client: Client | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._gone: str | None = None

    @property
    def alive(self) -> bool:
        """True while the server is connected and has not failed."""
        return self._client is not None and self._gone is None

    def redact(self, text: str) -> str:
        """``text`` with every ``env`` / ``headers`` value of this server replaced by ``***``."""
        for secret in self._secrets():
            if secret:
                text = text.replace(secret, "***")
        return text

    def _secrets(self) -> Iterable[str]:
        config = self._config
        return config.env.values() if isinstance(config, McpStdioServer) else config.headers.values()

    def _target(self) -> StdioServerParameters | Any:
        config = self._config
        if isinstance(config, McpStdioServer):
            return StdioServerParameters(command=config.command, args=list(config.args), env=dict(config.env) or None,
                                         cwd=config.cwd or self._cwd)
        assert isinstance(config, McpHttpServer)
        http = httpx2.AsyncClient(headers=dict(config.headers), timeout=httpx2.Timeout(30.0, read=300.0))
        return streamable_http_client(config.url, http_client=http)

    async def start(self) -> list[Tool]:
        """Connect and list the server's tools (every page).

        Raises:
            McpServerGone: the server could not be started or did not answer in time
                (the message names the server and the cause).
        """
        ready: asyncio.Future[list[Tool]] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._hold(ready), name=f"mcp-server-{self.name}")
        try:
            with anyio.fail_after(self._start_timeout):
                return await asyncio.shield(ready)
        except TimeoutError:
            ready.cancel()
            await self.aclose()
            raise McpServerGone(self.name, f"MCP server {self.name!r} did not start within "
                                           f"{self._start_timeout:g} s") from None
        except McpServerGone:
            await self.aclose()
            raise

    async def _hold(self, ready: asyncio.Future[list[Tool]]) -> None:
        try:
            async with Client(self._target()) as client:
                tools: list[Tool] = []
                cursor: str | None = None
                while True:
                    listing = await client.list_tools(cursor=cursor)
                    tools.extend(listing.tools)
                    cursor = listing.next_cursor
                    if not cursor:
                        break
                self._client = client
                ready.set_result(tools)
                await self._stop.wait()
        except BaseException as exc:
            cause = _leaf(exc)
            message = self.redact(f"{type(cause).__name__}: {cause}".rstrip(": "))
            if not ready.done():
                ready.set_exception(McpServerGone(self.name, f"MCP server {self.name!r} failed to start: {message}"))
            elif not self._stop.is_set():
                self._gone = f"MCP server {self.name!r} stopped: {message}"
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            if not ready.done():
                ready.set_exception(McpServerGone(self.name, f"MCP server {self.name!r} failed to start"))

    async def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None) -> CallToolResult:
        """Run ``tools/call``.

        Returns:
            The server's result (``isError`` results included).

        Raises:
            McpServerGone: the server is not connected or stopped answering.
            MCPError: the server refused the request (a JSON-RPC error).
            TimeoutError: no answer within ``timeout`` seconds.
        """
        client = self._client
        if client is None or self._gone is not None:
            raise McpServerGone(self.name, self._gone or f"MCP server {self.name!r} is not running")
        try:
            return await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as exc:
            if exc.error.code == CONNECTION_CLOSED or self._client is None or self._task is None or self._task.done():
                raise self._went_away(exc) from None
            raise
        except TimeoutError:
            raise
        except Exception as exc:
            raise self._went_away(exc) from None

    def _went_away(self, exc: BaseException) -> McpServerGone:
        cause = _leaf(exc)
        self._gone = self._gone or self.redact(f"MCP server {self.name!r} stopped answering: "
                                               f"{type(cause).__name__}: {cause}".rstrip(": "))
        return McpServerGone(self.name, self._gone)

    async def aclose(self) -> None:
        """Close the connection (a stdio server's process is stopped). Idempotent."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        if self._client is None:  # still connecting: nothing to close gracefully
            task.cancel()
        try:
            with anyio.fail_after(30):
                await asyncio.shield(task)
        except (TimeoutError, Exception):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
