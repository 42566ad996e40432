"""Codex under a BwrapSandbox session: the whole app-server runs inside bubblewrap, its
model server bridged in, with and without built-in approvals (an approved call stays
inside too). Real Codex CLI, a scripted Responses server on 127.0.0.1, homes in tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_codex import codex
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    create_plugin_manager,
)
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex", "bwrap")]

NO_RETRIES = {"model_providers.harness.request_max_retries": 0, "model_providers.harness.stream_max_retries": 0}


def agent_for(server: Any, tmp_path: Path, workspace: Path, mode: str = "allow-all") -> HarnessAgent:
    """``allow-all`` without approval plugins: no built-in approvals; any other mode: built-in
    approvals (every call approved by :func:`generate_approving_all`)."""
    home = tmp_path / "codex-home"
    home.mkdir(exist_ok=True)
    options = {"model": "gpt-5.5", "base_url": server.openai_base_url, "api_key": "test-key", "home": home,
               "codex_home": home / ".codex", "cwd": workspace, "config": dict(NO_RETRIES)}
    manager = create_plugin_manager(load_entry_points=False) if mode == "allow-all" else None
    return HarnessAgent(harness=codex(**options), permission_mode=mode, include_plugin_tools=False,
                        plugin_manager=manager)


async def generate_approving_all(agent: HarnessAgent, session: Any) -> tuple[Any, list[Any]]:
    """Generate, approving every request; the last result and the parts of every step."""
    result = await agent.generate(session=session, prompt="try it")
    parts = list(result.parts)
    while result.finish_reason == "awaiting-approval":
        result = await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": r.approval_id, "approved": True} for r in result.approval_requests])
        parts += result.parts
    return result, parts


def outputs(parts: list[Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        if isinstance(part, ToolResultPart):
            out[part.tool_call_id] = str(part.output)
        elif isinstance(part, ToolErrorPart):
            out[part.tool_call_id] = str(part.error)
        elif isinstance(part, ToolOutputDeniedPart):
            out[part.tool_call_id] = "denied"
    return out


@pytest.mark.parametrize(("network", "mode"), [("none", "allow-all"), ("host", "allow-all"),
                                               ("none", "allow-reads"), ("host", "allow-reads")])
async def test_codex_built_ins_cannot_write_outside_the_workspace(
    tmp_path: Path, workspace: Path, outside: Path, loopback_server: int, network: str, mode: str
) -> None:
    """Every call approved (allow-reads): an approval never lets a call out of the sandbox."""
    patch = f"*** Begin Patch\n*** Add File: {outside}/patched.txt\n+pwned\n*** End Patch\n"
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": f"echo pwned > {outside}/target.txt"}, id="c-out")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo pwned > /tmp/harness-codex-tmp.txt"},
                                           id="c-tmp")]),
        ModelTurn(tool_calls=[ToolCallSpec("apply_patch", patch, id="c-patch")]),
        ModelTurn(tool_calls=[ToolCallSpec(
            "bash", {"command": f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3"}, id="c-net")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo inside > inside.txt && cat inside.txt"},
                                           id="c-in")]),
        "done",
    )
    with ScriptedModelServer(script) as server:
        agent = agent_for(server, tmp_path, workspace, mode)
        sandbox = BwrapSandbox(workspace, network=network)  # type: ignore[arg-type]
        async with await agent.create_session(sandbox=sandbox) as session:
            assert session.builtin_approvals is (mode != "allow-all")
            result, parts = await generate_approving_all(agent, session)
        await sandbox.stop()
    assert result.finish_reason == "stop", parts
    seen = outputs(parts)
    assert {"c-out", "c-tmp", "c-patch", "c-net", "c-in"} <= set(seen), seen
    assert (outside / "target.txt").read_text() == "original\n", seen.get("c-out")
    assert not Path("/tmp/harness-codex-tmp.txt").exists(), seen.get("c-tmp")  # noqa: ASYNC240
    assert not (outside / "patched.txt").exists(), seen.get("c-patch")
    if network == "none":
        assert "hello-from-host" not in seen.get("c-net", ""), seen
    else:
        assert "hello-from-host" in seen.get("c-net", ""), seen
    assert (workspace / "inside.txt").read_text() == "inside\n"
    assert "inside" in seen["c-in"]


async def test_an_approved_escalation_still_cannot_write_outside(
    tmp_path: Path, workspace: Path, outside: Path
) -> None:
    escalate = {"command": f"echo pwned > {outside}/target.txt", "sandbox_permissions": "require_escalated",
                "justification": "need to write outside"}
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", escalate, id="c-esc")]), "done")
    with ScriptedModelServer(script) as server:
        agent = agent_for(server, tmp_path, workspace, mode="allow-reads")
        sandbox = BwrapSandbox(workspace)
        async with await agent.create_session(sandbox=sandbox) as session:
            result, parts = await generate_approving_all(agent, session)
        await sandbox.stop()
    assert result.finish_reason == "stop", parts
    assert "c-esc" in outputs(parts), parts
    assert (outside / "target.txt").read_text() == "original\n", parts


async def test_a_remote_model_endpoint_without_network_is_refused(
    tmp_path: Path, workspace: Path
) -> None:
    agent = HarnessAgent(harness=codex(base_url="https://models.example/v1", api_key="k", cwd=workspace))
    with pytest.raises(HarnessCapabilityUnsupportedError, match=r"127\.0\.0\.1"):
        await agent.create_session(sandbox=BwrapSandbox(workspace))
