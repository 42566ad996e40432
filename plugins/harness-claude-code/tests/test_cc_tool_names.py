"""Claude Code offers host tools as ``mcp__harness__<name>``: a name that prefix pushes over
the provider's 64 characters is refused when the agent is built (issue 16, item 15)."""

from __future__ import annotations

import pytest
from harness_claude_code import claude_code

from harness_core import HarnessAgent, HarnessConfigurationError, define_harness_tool


def test_a_host_tool_name_too_long_once_prefixed_is_refused() -> None:
    assert claude_code().host_tool_prefix == "mcp__harness__"
    tool = define_harness_tool(name="x" * 51, description="d", input={"type": "object"}, execute=lambda v, c: "ok")
    with pytest.raises(HarnessConfigurationError, match=r"65 characters as mcp__harness__x{51}"):
        HarnessAgent(harness=claude_code(), tools=[tool], include_plugin_tools=False)
    fits = define_harness_tool(name="y" * 50, description="d", input={"type": "object"}, execute=lambda v, c: "ok")
    HarnessAgent(harness=claude_code(), tools=[fits], include_plugin_tools=False)
