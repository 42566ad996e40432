"""Host tools offered to Claude Code through an in-process MCP server.

``claude-agent-sdk`` routes the CLI's JSON-RPC for an ``{"type": "sdk"}`` MCP server to
an ``mcp.server.Server`` living in this process (the CLI calls the tools
``mcp__<server>__<tool>``). We build that lowlevel server ourselves instead of using
``create_sdk_mcp_server``, for two reasons:

* the CLI puts the call's ``tool_use_id`` in the request's ``_meta``
  (``claudecode/toolUseId``), which ``create_sdk_mcp_server`` drops, and the host needs it
  to key results, approvals and suspended state by call id;
* ``create_sdk_mcp_server`` validates arguments before the handler runs, so an invalid
  call would never reach the host; here the raw arguments go to the host, which
  validates them with the tool's own schema (and reports the error in its stream).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from harness_core import MAX_OUTPUT_CHARS, HostToolSpec, ToolOutput

__all__ = ["INLINE_RESULT_CHARS", "RESULT_SIZE_META", "TOOL_USE_ID_META", "HostCallHandler", "build_host_server"]

TOOL_USE_ID_META = "claudecode/toolUseId"
"""The ``_meta`` key under which Claude Code sends a call's ``tool_use_id``."""

RESULT_SIZE_META = "anthropic/maxResultSizeChars"
"""The tool ``_meta`` key raising the size up to which Claude Code keeps a result inline
(over it, the model gets a "persisted output" preview instead; the default is 50,000)."""

INLINE_RESULT_CHARS = MAX_OUTPUT_CHARS + 1_000
"""Host results are cut by the core at :data:`harness_core.MAX_OUTPUT_CHARS` plus a marker:
every one of them stays inline, as the stream shows it."""

HostCallHandler = Callable[[str | None, str, dict[str, Any]], Awaitable[ToolOutput]]
"""``handler(tool_use_id, tool_name, arguments) -> ToolOutput``."""


def _tool_use_id(*metas: object) -> str | None:
    for meta in metas:
        if isinstance(meta, Mapping):
            value = meta.get(TOOL_USE_ID_META)
            if isinstance(value, str) and value:
                return value
    return None


def _content(output: ToolOutput) -> list[Any]:
    import mcp.types as mcp_types

    blocks = output.value if isinstance(output.value, list) else None
    if blocks is None or not all(isinstance(b, Mapping) and b.get("type") in ("text", "image") for b in blocks):
        return [mcp_types.TextContent(type="text", text=output.content)]
    return [mcp_types.ImageContent(type="image", data=str(b["data"]), mimeType=str(b["mimeType"]))
            if b["type"] == "image" else mcp_types.TextContent(type="text", text=str(b.get("text", "")))
            for b in blocks]


def build_host_server(name: str, tools: Sequence[HostToolSpec], handler: HostCallHandler) -> dict[str, Any]:
    """An ``McpSdkServerConfig`` (a dict) serving ``tools``; each call goes to ``handler``.

    Args:
        name: the server name (tools appear as ``mcp__<name>__<tool>``).
        tools: the host tools to list, with their JSON Schemas and read-only hints.
        handler: awaited for each call with the call's ``tool_use_id`` (``None`` if the
            CLI did not send one), the tool name and the raw arguments; its
            :class:`~harness_core.ToolOutput` is returned to the model.

    Returns:
        ``{"type": "sdk", "name": name, "instance": <mcp Server>}`` for
        ``ClaudeAgentOptions.mcp_servers``.
    """
    import mcp.types as mcp_types
    from mcp.server import Server

    listed = [
        mcp_types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=dict(spec.input_schema),
            annotations=mcp_types.ToolAnnotations(read_only_hint=spec.read_only),
            _meta={RESULT_SIZE_META: INLINE_RESULT_CHARS},
        )
        for spec in tools
    ]
    known = {spec.name for spec in tools}

    async def on_list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=listed)

    async def on_call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        tool_name = str(params.name)
        if tool_name not in known:
            output = ToolOutput(f"unknown host tool {tool_name!r}", is_error=True)
        else:
            call_id = _tool_use_id(getattr(params, "meta", None), getattr(ctx, "meta", None))
            output = await handler(call_id, tool_name, dict(params.arguments or {}))
        return mcp_types.CallToolResult(content=_content(output), is_error=output.is_error)

    server: Any = Server(name, version="1.0.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    return {"type": "sdk", "name": name, "instance": server}
