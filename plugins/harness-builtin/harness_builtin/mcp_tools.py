"""The MCP tools of a built-in session: every configured server's tools, by harness name.

:class:`McpToolbox` connects to the ``mcp_servers`` of the adapter when the session starts
(all at once), names each server tool ``mcp__<server>__<tool>``, declares it as a
:class:`~harness_core.BuiltinTool` (``readOnlyHint`` makes it
:attr:`~harness_core.ToolKind.READ_ONLY`, so it may run in parallel; otherwise it is an
edit), runs calls and turns their results into tool outputs, and stops the servers with
the session. A server that fails to start, or stops later, leaves a notice (an ``error``
part naming it, emitted at the next model step) and its tools are no longer offered; the
session goes on without them.

A result becomes a :class:`~harness_core.ToolOutput`: ``content`` is its text (the text
blocks; an image or audio block as a ``[image: image/png, N bytes]`` line; an embedded text
resource's text; the structured content as JSON when there is no text); ``value`` keeps
the result for the ``tool-result`` part
(``{"content": [...MCP blocks...], "structuredContent": ..., "isError": ...}``) and is
where the session reads the rich items from (:mod:`harness_builtin.rich_results`: an image
reaches a model client that takes images as an image); ``is_error`` is the result's
``isError``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs
from mcp import MCPError
from mcp.types import CallToolResult, Tool

from harness_core import (
    BuiltinTool,
    ErrorPart,
    McpServerConfig,
    ToolKind,
    ToolOutput,
    mcp_tool_name,
    normalize_output,
)

from .mcp_client import McpConnection, McpServerGone

__all__ = ["McpTool", "McpToolbox", "mcp_output"]

logger = logging.getLogger(__name__)

DEFAULT_START_TIMEOUT = 60.0
"""Seconds a server has to start and list its tools."""


@attrs.frozen
class McpTool:
    """One MCP tool as the session offers it.

    Attributes:
        name: the harness-facing name ``mcp__<server>__<tool>``.
        server: the server's name.
        tool: the server's own tool name.
        declaration: its :class:`~harness_core.BuiltinTool` (kind from the annotations).
    """

    name: str
    server: str
    tool: str
    declaration: BuiltinTool

    @property
    def read_only(self) -> bool:
        """True when the server marks it ``readOnlyHint``."""
        return self.declaration.read_only


def _declare(server: str, tool: Tool) -> McpTool:
    name = mcp_tool_name(server, tool.name)
    hints = tool.annotations
    kind = ToolKind.READ_ONLY if hints is not None and hints.read_only_hint else ToolKind.EDIT
    schema = dict(tool.input_schema) if isinstance(tool.input_schema, Mapping) else {"type": "object"}
    declaration = BuiltinTool(name=name, native_name=name, kind=kind, description=tool.description or "",
                              input_schema=schema)
    return McpTool(name=name, server=server, tool=tool.name, declaration=declaration)


def _block_text(block: Any) -> str | None:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        return str(text) if text is not None else f"[resource: {resource.uri}]"
    if kind == "resource_link":
        return f"[resource: {block.uri}]"
    return None


def mcp_output(result: CallToolResult) -> ToolOutput:
    """The tool output of an MCP result (see the module docs)."""
    texts = [text for text in (_block_text(block) for block in result.content) if text is not None]
    structured = result.structured_content
    if not any(getattr(block, "type", None) == "text" for block in result.content) and structured is not None:
        texts.append(json.dumps(structured, ensure_ascii=False))
    value: dict[str, Any] = {
        "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
        "isError": bool(result.is_error),
    }
    if structured is not None:
        value["structuredContent"] = structured
    return ToolOutput(normalize_output("\n".join(texts)).content, is_error=bool(result.is_error), value=value)


class McpToolbox:
    """The MCP servers of one session and their tools.

    Args:
        servers: the adapter's ``mcp_servers`` (parsed).
        cwd: the working directory of stdio servers without their own ``cwd``.
        start_timeout: seconds each server has to start.
    """

    def __init__(self, servers: Mapping[str, McpServerConfig], *, cwd: str | None,
                 start_timeout: float = DEFAULT_START_TIMEOUT) -> None:
        self._connections = {name: McpConnection(name, config, cwd=cwd, start_timeout=start_timeout)
                             for name, config in servers.items()}
        self._tools: dict[str, McpTool] = {}
        self._notices: list[ErrorPart] = []
        self._reported: set[str] = set()

    async def start(self) -> None:
        """Connect to every server at once; a failure becomes a notice, never an exception."""
        names = list(self._connections)
        results = await asyncio.gather(*(self._connections[n].start() for n in names), return_exceptions=True)
        for name, result in zip(names, results, strict=True):
            if isinstance(result, BaseException):
                message = str(result) if isinstance(result, McpServerGone) else \
                    self._connections[name].redact(f"MCP server {name!r} failed to start: {result}")
                self._notice(name, message)
                continue
            for tool in result:
                declared = _declare(name, tool)
                self._tools[declared.name] = declared

    def _notice(self, server: str, message: str) -> None:
        if server in self._reported:
            return
        self._reported.add(server)
        logger.warning("%s; the session goes on without its tools", message)
        self._notices.append(ErrorPart(error=f"{message}; the session goes on without its tools",
                                       error_type="mcp-server-failed"))

    @property
    def tools(self) -> Mapping[str, McpTool]:
        """The tools of the servers that are connected, by harness name."""
        return MappingProxyType({name: tool for name, tool in self._tools.items()
                                 if self._connections[tool.server].alive})

    @property
    def known(self) -> frozenset[str]:
        """Every tool name any server listed (connected or not)."""
        return frozenset(self._tools)

    def declarations(self) -> dict[str, BuiltinTool]:
        """The connected tools' declarations, by harness name."""
        return {name: tool.declaration for name, tool in self.tools.items()}

    def take_notices(self) -> list[ErrorPart]:
        """The ``error`` parts not emitted yet (servers that failed or stopped)."""
        for name, connection in self._connections.items():
            if name not in self._reported and connection.alive is False and any(
                    t.server == name for t in self._tools.values()):
                self._notice(name, f"MCP server {name!r} stopped")
        notices, self._notices = self._notices, []
        return notices

    async def call(self, name: str, arguments: dict[str, Any], *, timeout: float | None) -> ToolOutput:
        """Run the MCP tool ``name``; every failure is an error output naming the server.

        Raises:
            KeyError: ``name`` is no tool this toolbox listed.
        """
        tool = self._tools[name]
        connection = self._connections[tool.server]
        try:
            result = await connection.call(tool.tool, arguments, timeout=timeout)
        except McpServerGone as exc:
            self._notice(tool.server, str(exc))
            return ToolOutput(f"Error: {exc}", is_error=True)
        except MCPError as exc:
            return ToolOutput(connection.redact(f"Error: MCP server {tool.server!r} refused the call: {exc}"),
                              is_error=True)
        except TimeoutError:
            return ToolOutput(f"Error: MCP server {tool.server!r} did not answer {tool.tool!r} within {timeout:g} s",
                              is_error=True)
        return mcp_output(result)

    async def aclose(self) -> None:
        """Stop every server (no process is left behind). Idempotent."""
        await asyncio.gather(*(c.aclose() for c in self._connections.values()), return_exceptions=True)


def default_cwd(root: object) -> str | None:
    """``root`` when it is a local directory (stdio servers start there), else None."""
    path = os.fspath(root) if isinstance(root, str | os.PathLike) else None
    return path if path is not None and os.path.isdir(path) else None
