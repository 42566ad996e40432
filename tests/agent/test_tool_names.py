"""A host tool name the adapter's prefix pushes over the provider's 64 characters is refused
at agent construction (issue 16, item 15)."""

from __future__ import annotations

import pytest

from harness_core import HarnessAgent, HarnessConfigurationError, HarnessTool, define_harness_tool
from harness_core.testing import ScriptedAdapter


def named(name: str) -> HarnessTool:
    return define_harness_tool(name=name, description="d", input={"type": "object"}, execute=lambda v, c: "ok")


def prefixing_adapter() -> ScriptedAdapter:
    return ScriptedAdapter([], host_tool_prefix="mcp__harness__")


def test_a_prefixed_name_over_64_characters_is_refused() -> None:
    fits = "a" * 50  # mcp__harness__ + 50 = 64
    HarnessAgent(harness=prefixing_adapter(), tools=[named(fits)], include_plugin_tools=False)
    too_long = "b" * 51
    with pytest.raises(HarnessConfigurationError) as caught:
        HarnessAgent(harness=prefixing_adapter(), tools=[named(fits), named(too_long)], include_plugin_tools=False)
    message = str(caught.value)
    assert f"'{too_long}' (65 characters as mcp__harness__{too_long})" in message
    assert "at most 50 characters" in message and repr(fits) not in message


def test_an_adapter_without_a_prefix_takes_64_characters() -> None:
    agent = HarnessAgent(harness=ScriptedAdapter([]), tools=[named("c" * 64)], include_plugin_tools=False)
    assert "c" * 64 in agent.tools
