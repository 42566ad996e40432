"""pi under a BwrapSandbox session: the whole pi process runs inside bubblewrap, its model
server on 127.0.0.1 bridged in. Real pi, a scripted model server, homes in tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    ToolErrorPart,
    ToolResultPart,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi", "bwrap", "socat")]


def agent_for(server: Any, workspace: Path, **settings: Any) -> HarnessAgent:
    options = {"model": "fake-model", "base_url": server.openai_base_url, "api": "openai-completions",
               "cwd": workspace, "max_retries": 0, **settings}
    return HarnessAgent(harness="pi", harness_options=options, permission_mode="allow-all",
                        include_plugin_tools=False)


def outputs(parts: list[Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        if isinstance(part, ToolResultPart):
            out[part.tool_call_id] = str(part.output)
        elif isinstance(part, ToolErrorPart):
            out[part.tool_call_id] = str(part.error)
    return out


@pytest.mark.parametrize("network", ["none", "host"])
async def test_pi_built_ins_cannot_write_outside_the_workspace(
    workspace: Path, outside: Path, loopback_server: int, network: str
) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("write", {"path": str(outside / "pwned.txt"), "content": "pwned"},
                                           id="w_out")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": f"echo pwned > {outside}/target.txt"}, id="b_out")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": f"cat {outside}/secret.txt; ls ~/.ssh"},
                                           id="b_read")]),
        ModelTurn(tool_calls=[ToolCallSpec(
            "bash", {"command": f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3"}, id="b_net")]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "inside.txt", "content": "inside"}, id="w_in")]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo ran > ran.txt && cat inside.txt"}, id="b_in")]),
        "done",
    ]
    with ScriptedModelServer(script) as server:
        agent = agent_for(server, workspace)
        sandbox = BwrapSandbox(workspace, network=network)  # type: ignore[arg-type]
        async with await agent.create_session(sandbox=sandbox) as session:
            result = await agent.generate(session=session, prompt="try it")
        await sandbox.stop()
    assert result.finish_reason == "stop", result.parts
    seen = outputs(result.parts)
    assert not (outside / "pwned.txt").exists(), seen["w_out"]
    assert (outside / "target.txt").read_text() == "original\n"
    assert "TOP-SECRET-VALUE" not in seen["b_read"]
    if network == "none":
        assert "hello-from-host" not in seen["b_net"], seen["b_net"]
    else:
        assert "hello-from-host" in seen["b_net"], seen["b_net"]
    assert (workspace / "inside.txt").read_text() == "inside"
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert "inside" in seen["b_in"]


async def test_pi_cannot_rewrite_its_own_configuration(workspace: Path) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec(
            "bash", {"command": 'echo "{}" > "$PI_CODING_AGENT_DIR/models.json"; '
                                'echo "export default function () {}" > "$PI_CODING_AGENT_DIR/extensions/x.js"; '
                                'touch "$HOME/ok.txt" && echo home-writable'}, id="b_conf")]),
        "done",
    ]
    with ScriptedModelServer(script) as server:
        agent = agent_for(server, workspace)
        sandbox = BwrapSandbox(workspace)
        async with await agent.create_session(sandbox=sandbox) as session:
            result = await agent.generate(session=session, prompt="try it")
        await sandbox.stop()
    seen = outputs(result.parts)["b_conf"]
    assert "Read-only file system" in seen, seen
    assert "home-writable" in seen, seen


async def test_a_remote_model_endpoint_without_network_is_refused(workspace: Path) -> None:
    agent = HarnessAgent(harness="pi", harness_options={"model": "m", "base_url": "https://models.example/v1",
                                                        "cwd": workspace})
    with pytest.raises(HarnessCapabilityUnsupportedError, match="network='host'"):
        await agent.create_session(sandbox=BwrapSandbox(workspace))
