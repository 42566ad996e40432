"""MCP servers on the real Codex CLI: a real stdio server (the ``mcp`` SDK), approvals, names."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from harness_codex.testing import CATALOG_MODEL, write_model_catalog

from harness_core import HarnessAgent, ToolCallPart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

SERVER = Path(__file__).parent / "servers" / "notes_mcp.py"


def _agent(make_agent: Callable[..., HarnessAgent], server: ScriptedModelServer, tmp_path: Path,
           **agent_kwargs: object) -> HarnessAgent:
    catalog = write_model_catalog(tmp_path / "catalog.json")
    notes = {"command": sys.executable, "args": [str(SERVER)], "env": {"NOTES_FILE": str(tmp_path / "notes.txt")}}
    return make_agent(server, adapter_overrides={
        "model": CATALOG_MODEL, "mcp_servers": {"notes": notes},
        "config": {"model_catalog_json": str(catalog), "model_providers.harness.request_max_retries": 0,
                   "model_providers.harness.stream_max_retries": 0}}, **agent_kwargs)


def _script() -> Script:
    return Script.of(ModelTurn(tool_calls=[ToolCallSpec("mcp__notes__add_note", {"text": "buy milk"}, id="m-1")]),
                     "noted")


async def test_mcp_call_runs_and_is_named_mcp_server_tool(make_agent: Callable[..., HarnessAgent],
                                                          tmp_path: Path) -> None:
    with ScriptedModelServer(_script()) as server:
        agent = _agent(make_agent, server, tmp_path)
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="note it")
        finally:
            await session.destroy()
        sent = [r for r in server.requests if r.is_model_call][-1]
    assert result.finish_reason == "stop", result.error
    assert (tmp_path / "notes.txt").read_text() == "buy milk\n"
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_call_id == "m-1"]
    assert call.tool_name == "mcp__notes__add_note" and call.provider_executed and call.input == {"text": "buy milk"}
    (final,) = [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "m-1"]
    assert final.output == "noted: buy milk"
    assert "noted: buy milk" in str(sent.body)


async def test_mcp_call_goes_through_approvals(make_agent: Callable[..., HarnessAgent], tmp_path: Path) -> None:
    with ScriptedModelServer(_script()) as server:
        agent = _agent(make_agent, server, tmp_path, permission_mode="allow-reads")
        session = await agent.create_session()
        try:
            first = await agent.generate(session=session, prompt="note it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "mcp__notes__add_note"
            assert request.tool_call.input == {"text": "buy milk"}
            assert not (tmp_path / "notes.txt").exists()
            second = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": False, "reason": "no notes"}])
        finally:
            await session.destroy()
    assert second.finish_reason == "stop", second.error
    assert not (tmp_path / "notes.txt").exists()
    (denied,) = [p for p in second.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_call_id == "m-1" and denied.reason == "no notes"


def test_mcp_settings_errors_name_the_field_but_not_secrets() -> None:
    from harness_codex import codex

    from harness_core import HarnessConfigurationError

    with pytest.raises(HarnessConfigurationError, match=r"codex\(mcp_servers=...\).*notes.*env") as error:
        codex(mcp_servers={"notes": {"command": "x", "env": {"TOKEN": 12345}}})
    assert "12345" not in str(error.value)
    with pytest.raises(HarnessConfigurationError, match=r"web.*url"):
        codex(mcp_servers={"web": {"type": "http", "url": "ftp://x"}})
    with pytest.raises(HarnessConfigurationError, match=r"notes.*command"):
        codex(mcp_servers={"notes": {"args": []}})


async def test_inactive_mcp_server_is_denied_without_approval_parts(make_agent: Callable[..., HarnessAgent],
                                                                   tmp_path: Path) -> None:
    with ScriptedModelServer(_script()) as server:
        agent = _agent(make_agent, server, tmp_path, inactive_tools=["mcp__notes"])
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="note it")
        finally:
            await session.destroy()
    assert result.finish_reason == "stop", result.error
    assert not (tmp_path / "notes.txt").exists()
    assert not [p for p in result.parts if p.type in ("tool-approval-request", "tool-approval-response")]
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "mcp__notes__add_note"
