"""ACP agents get host tools through the relay MCP server as ``mcp__harness__<name>``: a name
that prefix pushes over the provider's 64 characters is refused when the agent is built
(issue 16, item 15)."""

from __future__ import annotations

import pytest
from harness_acp import acp

from harness_core import HarnessAgent, HarnessConfigurationError, define_harness_tool


def test_a_host_tool_name_too_long_once_prefixed_is_refused() -> None:
    adapter = acp()
    assert adapter.host_tool_prefix == "mcp__harness__"
    tool = define_harness_tool(name="x" * 51, description="d", input={"type": "object"}, execute=lambda v, c: "ok")
    with pytest.raises(HarnessConfigurationError, match=r"65 characters as mcp__harness__x{51}"):
        HarnessAgent(harness=adapter, tools=[tool], include_plugin_tools=False)
