"""The relay MCP server the agent runs: ``python -m harness_acp._relay_server``.

A stdio MCP server (``mcp`` lowlevel ``Server``) started by the ACP agent from the
``session/new`` MCP server list. ``tools/list`` and ``tools/call`` are forwarded to the
host's :class:`~harness_acp._relay.RelayChannel` at ``$HARNESS_ACP_RELAY_ADDRESS`` with
``$HARNESS_ACP_RELAY_TOKEN``; a refused token or an unreachable host is an error result,
never a silent success. Imports only the standard library and ``mcp``.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

RELAY_ADDRESS_ENV = "HARNESS_ACP_RELAY_ADDRESS"
RELAY_TOKEN_ENV = "HARNESS_ACP_RELAY_TOKEN"


def _content(mcp_types: Any, items: object, text: str) -> list[Any]:
    """MCP content for a relay reply: its ``items`` (text and image blocks) when valid, else
    the text as one block."""
    if isinstance(items, list) and items and all(
            isinstance(i, dict) and ((i.get("type") == "text" and isinstance(i.get("text"), str))
                                     or (i.get("type") == "image" and isinstance(i.get("data"), str)
                                     and isinstance(i.get("mimeType"), str))) for i in items):
        return [mcp_types.ImageContent(type="image", data=i["data"], mimeType=i["mimeType"]) if i["type"] == "image"
                else mcp_types.TextContent(type="text", text=i["text"]) for i in items]
    return [mcp_types.TextContent(type="text", text=text)]


async def ask(request: dict[str, Any]) -> dict[str, Any]:
    """Send one request to the host channel and return its reply (raises ``ConnectionError``)."""
    host, _, port = os.environ[RELAY_ADDRESS_ENV].rpartition(":")
    reader, writer = await asyncio.open_connection(host, int(port), limit=64 * 1024 * 1024)
    try:
        payload = {"token": os.environ.get(RELAY_TOKEN_ENV, ""), **request}
        writer.write(json.dumps(payload).encode("utf-8") + b"\n")
        await writer.drain()
        line = await reader.readline()
    finally:
        writer.close()
    if not line:
        raise ConnectionError("the host closed the relay channel")
    reply: dict[str, Any] = json.loads(line)
    if "error" in reply:
        raise ConnectionError(f"the host refused the relay request: {reply['error']}")
    return reply


async def serve() -> None:
    """Serve MCP on stdin/stdout until the agent closes it."""
    import mcp.types as mcp_types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    async def on_list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        reply = await ask({"op": "list"})
        tools = [
            mcp_types.Tool(name=t["name"], description=t.get("description") or "", input_schema=t["inputSchema"],
                           annotations=mcp_types.ToolAnnotations(read_only_hint=bool(t.get("readOnly"))))
            for t in reply.get("tools", [])
        ]
        return mcp_types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        try:
            reply = await ask({"op": "call", "name": str(params.name), "arguments": dict(params.arguments or {})})
            text, is_error = str(reply.get("content", "")), bool(reply.get("isError"))
            content = _content(mcp_types, reply.get("items"), text)
        except (OSError, ValueError, KeyError) as error:
            text, is_error = f"host tool relay failed: {error}", True
            content = [mcp_types.TextContent(type="text", text=text)]
        return mcp_types.CallToolResult(content=content, is_error=is_error)

    server: Any = Server("harness", version="1.0.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    """Entry point of ``python -m harness_acp._relay_server``."""
    asyncio.run(serve())


if __name__ == "__main__":
    main()
