"""The host-tool relay: the real relay MCP server process talking to the host channel."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from harness_acp._relay import RELAY_ADDRESS_ENV, RELAY_TOKEN_ENV, RelayChannel

from harness_core import HostToolSpec, ToolOutput

pytestmark = pytest.mark.anyio

TOOLS = [HostToolSpec(name="add", description="Add two numbers.",
                      input_schema={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
                      read_only=True)]


async def _mcp(env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "harness_acp._relay_server"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        try:
            listed: Any = await session.list_tools()
        except Exception as error:
            listed = error
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return listed, results


async def test_the_relay_lists_and_relays_calls_with_the_right_token() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def handler(name: str, arguments: dict[str, Any]) -> ToolOutput:
        seen.append((name, arguments))
        return ToolOutput(str(arguments["a"] + arguments["b"]))

    channel = RelayChannel(lambda: TOOLS, handler)
    await channel.start()
    try:
        env = {RELAY_ADDRESS_ENV: channel.address, RELAY_TOKEN_ENV: channel.token}
        listed, (ok, unknown) = await _mcp(env, [("add", {"a": 2, "b": 3}), ("rm", {})])
    finally:
        await channel.close()
    assert [(t.name, t.annotations.read_only_hint) for t in listed.tools] == [("add", True)]
    assert ok.is_error is False and ok.content[0].text == "5"
    assert unknown.is_error is True and "unknown or inactive host tool 'rm'" in unknown.content[0].text
    assert seen == [("add", {"a": 2, "b": 3})]
    assert channel.refused == 0


async def test_the_relay_refuses_a_wrong_token() -> None:
    seen: list[str] = []

    async def handler(name: str, arguments: dict[str, Any]) -> ToolOutput:
        seen.append(name)
        return ToolOutput("ran")

    channel = RelayChannel(lambda: TOOLS, handler)
    await channel.start()
    try:
        env = {RELAY_ADDRESS_ENV: channel.address, RELAY_TOKEN_ENV: "not-" + channel.token}
        listed, (result,) = await _mcp(env, [("add", {"a": 1, "b": 1})])
        # and on the raw channel, with no token at all
        host, _, port = channel.address.rpartition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(json.dumps({"op": "call", "name": "add", "arguments": {"a": 1, "b": 1}}).encode() + b"\n")
        await writer.drain()
        raw = json.loads(await reader.readline())
        writer.close()
    finally:
        await channel.close()
    assert not hasattr(listed, "tools") or not listed.tools, listed
    assert result.is_error is True and "unauthorized" in result.content[0].text
    assert raw == {"error": "unauthorized"}
    assert seen == [] and channel.refused == 3
