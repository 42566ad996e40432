"""pi: a host tool the model calls though it is inactive (issue 16, item 4).

An inactive host tool is never registered in pi, so pi refuses the call itself ("Tool
<name> not found"); the stream shows the call and a ``tool-output-denied`` whose reason
says it is inactive and quotes what the model was told. Nothing runs, the turn goes on.
A name that is no withheld host tool keeps pi's own answer: ``tool-call`` then ``tool-error``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness_core import LocalSandbox, ToolCallPart, ToolErrorPart, define_harness_tool
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]


def _tools(ran: list[Any]) -> list[Any]:
    secret = define_harness_tool(name="secret", description="d", input={"type": "object"},
                                 execute=lambda v, c: ran.append(v) or "leaked")
    echo = define_harness_tool(name="echo", description="d", input={"type": "object"}, execute=lambda v, c: "e")
    return [secret, echo]


def _tool_parts(parts: list[Any]) -> list[str]:
    return [p.type for p in parts if p.type.startswith("tool")]


@pytest.mark.parametrize("filtering", [{"inactive_tools": ["secret"]}, {"active_tools": ["echo", "read"]}],
                         ids=["inactive_tools", "active_tools"])
@pytest.mark.parametrize("permission_mode", ["allow-all", "allow-reads"])
async def test_a_call_to_an_inactive_host_tool_is_denied(
        pi_agent: PiAgentFactory, workspace: Path, filtering: dict[str, Any], permission_mode: str) -> None:
    ran: list[Any] = []
    script = [ModelTurn(tool_calls=[ToolCallSpec("secret", {"x": 1}, id="s1", unoffered=True)]), "ok"]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, tools=_tools(ran), include_plugin_tools=False, permission_mode=permission_mode,
                         **filtering)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="call it")
            violations = list(session.contract_violations)
        offered = server.offered_tools(0)
        told = server.last_tool_result() or ""
    assert ran == []
    assert violations == []
    check_stream_shape(result.parts)
    assert "secret" not in offered and "echo" in offered
    assert _tool_parts(result.parts) == ["tool-call", "tool-output-denied"]
    [call] = [p for p in result.parts if p.type == "tool-call"]
    assert call.tool_call_id == "s1" and call.tool_name == "secret" and call.input == {"x": 1}
    assert not call.provider_executed
    [denied] = [p for p in result.parts if p.type == "tool-output-denied"]
    assert denied.tool_call_id == "s1" and denied.tool_name == "secret"
    # pi never had the tool and answered the model itself; the reason quotes that answer.
    assert "secret" in told and "not found" in told
    assert "inactive" in (denied.reason or "")
    assert (denied.reason or "").endswith(f"told the model: {told}")
    assert result.finish_reason == "stop", result.error
    assert result.all_text.endswith("ok")


@pytest.mark.parametrize("name", ["nosuch", "bash"], ids=["unknown", "inactive-built-in"])
@pytest.mark.parametrize("permission_mode", ["allow-all", "allow-reads"])
async def test_a_call_pi_refuses_itself_stays_a_call_and_an_error(
        pi_agent: PiAgentFactory, workspace: Path, permission_mode: str, name: str) -> None:
    ran: list[Any] = []
    arguments = {"command": "touch ran.txt"}
    script = [ModelTurn(tool_calls=[ToolCallSpec(name, arguments, id="n1", unoffered=True)]), "ok"]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, tools=_tools(ran), include_plugin_tools=False, inactive_tools=["secret", "bash"],
                         permission_mode=permission_mode)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="call it")
            violations = list(session.contract_violations)
        told = server.last_tool_result() or ""
    assert ran == [] and violations == []
    assert not (workspace / "ran.txt").exists()
    check_stream_shape(result.parts)
    assert _tool_parts(result.parts) == ["tool-call", "tool-error"]
    [call] = [p for p in result.parts if isinstance(p, ToolCallPart)]
    [error] = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert call.tool_call_id == error.tool_call_id == "n1" and call.tool_name == error.tool_name == name
    assert call.input == arguments and call.provider_executed and error.provider_executed
    assert bool(call.dynamic) is (name == "nosuch")
    assert name in told and "not found" in told and error.error == told
    assert result.finish_reason == "stop", result.error
