"""Codex: an inactive host tool the model calls anyway (issue 16, item 4).

The tool is withheld (``inactive_tools``), so it is never declared to Codex as a dynamic
tool; Codex answers the call itself ("unsupported call: <name>"). The stream reports it as
``tool-call`` then ``tool-output-denied`` whose reason says it is inactive and what the model
was told. Nothing runs, and the turn goes on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness_core import HarnessAgent, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_contract

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

_FINAL = ("tool-result", "tool-error", "tool-output-denied")


def final_results(parts: Any, call_id: str) -> list[Any]:
    """The final result parts of call ``call_id`` (the contract allows exactly one)."""
    return [p for p in parts if p.type in _FINAL and p.tool_call_id == call_id]


async def test_a_call_to_an_inactive_host_tool_is_denied(make_agent: Callable[..., HarnessAgent]) -> None:
    ran: list[Any] = []
    secret = define_harness_tool(name="secret", description="d", input={"type": "object", "properties": {}},
                                 execute=lambda v, c: ran.append(v) or "leaked")
    echo = define_harness_tool(name="echo", description="d", input={"type": "object", "properties": {}},
                               execute=lambda v, c: "e")
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("secret", {"x": 1}, id="s-1", unoffered=True)]), "ok")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[secret, echo], inactive_tools=["secret"], include_plugin_tools=False)
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="call it")
            violations = list(session.contract_violations)
        finally:
            await session.destroy()
        offered = server.offered_tools(0)
        told = server.last_tool_result() or ""
    assert ran == []
    check_contract(violations)
    assert "secret" not in offered and "echo" in offered
    tool_parts = [p for p in result.parts if p.type.startswith("tool")]
    assert [p.type for p in tool_parts] == ["tool-call", "tool-output-denied"], tool_parts
    call, denied = tool_parts
    assert call.tool_call_id == denied.tool_call_id == "s-1"
    assert call.tool_name == denied.tool_name == "secret" and call.input == {"x": 1}
    assert final_results(result.parts, "s-1") == [denied] and not call.provider_executed
    # Codex never had the tool, so it answered the model itself; the part quotes what it said.
    assert "unsupported call: secret" in told
    assert "inactive" in (denied.reason or "")
    assert (denied.reason or "").endswith(f"told the model: {told}")
    assert result.finish_reason == "stop", result.error
    assert result.text == "ok"


def _tools(ran: list[Any]) -> list[Any]:
    return [define_harness_tool(name="secret", description="d", input={"type": "object", "properties": {}},
                                execute=lambda v, c: ran.append(v) or "leaked"),
            define_harness_tool(name="echo", description="d", input={"type": "object", "properties": {}},
                                execute=lambda v, c: "e")]


async def test_a_resumed_thread_still_reports_the_call(make_agent: Callable[..., HarnessAgent]) -> None:
    """``resume_from`` reopens the thread with ``thread/resume``; the call is still reported."""
    ran: list[Any] = []
    script = Script.of("first", ModelTurn(tool_calls=[ToolCallSpec("secret", {}, id="s-2", unoffered=True)]), "ok")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=_tools(ran), inactive_tools=["secret"], include_plugin_tools=False)
        session = await agent.create_session()
        await agent.generate(session=session, prompt="hello")
        state = await session.stop()
        await session.destroy()
        resumed = await agent.create_session(resume_from=state)
        try:
            result = await agent.generate(session=resumed, prompt="call it")
            violations = list(resumed.contract_violations)
        finally:
            await resumed.destroy()
    assert ran == []
    check_contract(violations)
    assert [p.type for p in result.parts if p.type.startswith("tool")] == ["tool-call", "tool-output-denied"]
    [denied] = final_results(result.parts, "s-2")
    assert "inactive" in (denied.reason or "") and (denied.reason or "").endswith("unsupported call: secret")
    assert result.finish_reason == "stop", result.error
