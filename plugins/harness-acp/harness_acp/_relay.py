"""The host side of the host-tool relay: a loopback channel with a per-session token.

ACP agents take MCP servers in ``session/new``, not tools. For each session that has host
tools the adapter starts a :class:`RelayChannel` (a TCP listener on 127.0.0.1, port 0) and
passes the agent a stdio MCP server (:mod:`harness_acp._relay_server`, run with this
Python) whose environment names the channel's address and a fresh random token. The MCP
server lists the session's active host tools and relays every call over the channel.

Wire (one JSON line each way per connection)::

    -> {"token": "...", "op": "list"}
    <- {"tools": [{"name", "description", "inputSchema", "readOnly"}]}
    -> {"token": "...", "op": "call", "name": "add", "arguments": {...}}
    <- {"content": "5", "isError": false}
    <- {"content": "text\n[audio: ...]", "isError": false, "items": [{"type": "text", "text"},
        {"type": "image", "data", "mimeType"}]}          (a rich result: MCP content blocks)

A request whose token does not match gets ``{"error": "unauthorized"}`` and nothing
else; the comparison is constant-time. The token is never written to logs, parts or
suspended state.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from harness_core import HostToolSpec, ToolOutput

__all__ = ["RELAY_ADDRESS_ENV", "RELAY_TOKEN_ENV", "HostCallHandler", "RelayChannel", "acp_mcp_server", "relay_reply"]

RELAY_ADDRESS_ENV: Final = "HARNESS_ACP_RELAY_ADDRESS"
RELAY_TOKEN_ENV: Final = "HARNESS_ACP_RELAY_TOKEN"
_MAX_LINE: Final = 64 * 1024 * 1024

HostCallHandler = Callable[[str, dict[str, Any]], Awaitable[ToolOutput]]
"""``handler(tool_name, arguments) -> ToolOutput``."""


class RelayChannel:
    """A loopback listener answering the relay MCP server (see the module docstring).

    Args:
        tools: returns the host tools active right now (read at every ``list``).
        handler: awaited for each call of a listed tool.
        result_content: the rich result items relayed as MCP content (``text``,
            ``image``); the others become placeholder text with a logged warning.
    """

    def __init__(self, tools: Callable[[], Sequence[HostToolSpec]], handler: HostCallHandler,
                 result_content: frozenset[str] = frozenset({"text"})) -> None:
        self._tools = tools
        self._handler = handler
        self._result_content = result_content
        self.token = secrets.token_urlsafe(32)
        self._server: asyncio.Server | None = None
        self.address = ""
        self.refused = 0
        self._connections: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Listen on 127.0.0.1 (a free port)."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_MAX_LINE)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.address = f"{host}:{port}"

    async def close(self) -> None:
        """Stop listening and cancel the calls still being served (a call whose agent died
        would otherwise wait forever for its turn). Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        connections, self._connections = self._connections, set()
        for task in connections:
            task.cancel()
        if connections:
            await asyncio.wait(connections, timeout=1.0)
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)

    def mcp_server(self, name: str) -> dict[str, Any]:
        """The stdio MCP server config to pass the agent (``command``, ``args``, ``env``)."""
        return {"name": name, "command": sys.executable, "args": ["-m", "harness_acp._relay_server"],
                "env": {RELAY_ADDRESS_ENV: self.address, RELAY_TOKEN_ENV: self.token}}

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            line = await reader.readline()
            reply = await self._answer(line)
            writer.write(json.dumps(reply).encode("utf-8") + b"\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
        except ValueError:
            return {"error": "malformed request"}
        token = request.get("token") if isinstance(request, dict) else None
        if not isinstance(token, str) or not hmac.compare_digest(token.encode(), self.token.encode()):
            self.refused += 1
            return {"error": "unauthorized"}
        op = request.get("op")
        if op == "list":
            return {"tools": [{"name": t.name, "description": t.description, "inputSchema": dict(t.input_schema),
                               "readOnly": t.read_only} for t in self._tools()]}
        if op == "call":
            name = request.get("name")
            arguments = request.get("arguments")
            known = {t.name for t in self._tools()}
            if not isinstance(name, str) or name not in known:
                return {"content": f"unknown or inactive host tool {name!r}", "isError": True}
            output = await self._handler(name, dict(arguments) if isinstance(arguments, dict) else {})
            return relay_reply(output, self._result_content)
        return {"error": f"unknown op {op!r}"}


def relay_reply(output: ToolOutput, accepts: frozenset[str]) -> dict[str, Any]:
    """The relay's answer to a call: ``content`` (text) and ``isError``, plus ``items``
    (MCP ``text`` / ``image`` blocks) for a rich result."""
    if not output.items:
        return {"content": output.content, "isError": output.is_error}
    rendered = output.render(accepts, "the ACP agent")
    items = [{"type": "image", "data": item.data, "mimeType": item.media_type} if item.kind == "image"
             else {"type": "text", "text": item.text or ""} for item in rendered.items]
    return {"content": rendered.text, "isError": output.is_error, "items": items}


def acp_mcp_server(name: str, config: dict[str, Any]) -> Any:
    """A ``session/new`` MCP server entry (``McpServerHttp`` / ``McpServerStdio``) for ``config``."""
    from acp.schema import EnvVariable, HttpHeader, McpServerHttp, McpServerStdio

    if config.get("type") == "http":
        headers = [HttpHeader(name=k, value=v) for k, v in config.get("headers", {}).items()]
        return McpServerHttp(type="http", name=name, url=config["url"], headers=headers)
    env = [EnvVariable(name=k, value=v) for k, v in config.get("env", {}).items()]
    return McpServerStdio(name=name, command=config["command"], args=list(config.get("args", [])), env=env)
