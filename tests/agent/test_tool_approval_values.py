"""tool_approval carries a denial reason; a bad tool_approval function never leaks the host's
error text to the model; on_tool_execution_end runs under on_error="fail" too."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from harness_core import HarnessConfigurationError, define_harness_tool
from harness_core.parts.models import ToolOutputDeniedPart
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

pytestmark = pytest.mark.anyio


def tool(ran: list[Any], execute: Any = None) -> Any:
    def run(input: Any, ctx: Any) -> str:
        ran.append(input)
        return "ran"

    return define_harness_tool(name="t", description="t", input={"type": "object"}, execute=execute or run)


async def one_call(setting: Any, ran: list[Any]) -> Any:
    adapter = ScriptedAdapter([[[CallHost("t", {"x": 1}, id="c1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool(ran)], tool_approval={"t": setting})
    session = await agent.create_session()
    return await agent.generate(session=session, prompt="go")


async def test_a_denial_mapping_carries_its_reason_to_the_model() -> None:
    ran: list[Any] = []
    result = await one_call({"type": "denied", "reason": "t is off on weekends"}, ran)
    [denied] = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.reason == "t is off on weekends" and "t is off on weekends" in result.text and ran == []


async def test_a_function_may_return_a_denial_mapping() -> None:
    ran: list[Any] = []
    result = await one_call(lambda call, ctx: {"type": "denied", "reason": f"no {call.input['x']}"}, ran)
    assert "no 1" in result.text and ran == []


def test_bad_mappings_are_configuration_errors() -> None:
    adapter = ScriptedAdapter([[]])
    for bad, match in [({"type": "nope"}, "not an approval status"), ({"reason": "x"}, "takes 'type'"),
                       ({"type": "denied", "why": "x"}, "takes 'type'"), ({"type": "denied", "reason": 3}, "string")]:
        with pytest.raises(HarnessConfigurationError, match=match):
            adapter.agent(tools=[tool([])], tool_approval={"t": bad})


@pytest.mark.parametrize("returned", [object(), "maybe", {"type": "denied", "reason": 5}])
async def test_a_function_returning_a_wrong_value_denies_with_a_generic_message(
        returned: Any, caplog: pytest.LogCaptureFixture) -> None:
    ran: list[Any] = []
    with caplog.at_level(logging.ERROR, logger="harness_core.approval"):
        result = await one_call(lambda call, ctx: returned, ran)
    [denied] = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.reason == "the approval function for 't' gave no valid decision"
    assert "ValueError" not in result.text and "object at" not in result.text and "maybe" not in result.text
    assert ran == [] and "tool_approval['t']" in caplog.text


async def test_a_function_that_raises_denies_without_its_message() -> None:
    def boom(call: Any, ctx: Any) -> str:
        raise RuntimeError("database password is hunter2")

    ran: list[Any] = []
    result = await one_call(boom, ran)
    assert "hunter2" not in result.text and "no valid decision" in result.text and ran == []


async def test_on_tool_execution_end_runs_when_on_error_is_fail() -> None:
    ends: list[Any] = []

    def fail(input: Any, ctx: Any) -> str:
        raise RuntimeError("tool broke")

    adapter = ScriptedAdapter([[[CallHost("t", {"x": 1}, id="c1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool([], fail)], on_error="fail", on_tool_execution_end=ends.append)
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "error"
    assert len(ends) == 1 and ends[0].call.tool_call_id == "c1" and isinstance(ends[0].error, RuntimeError)
