"""ACP agents (pi-acp, codex-acp) under a BwrapSandbox session: the whole agent process runs
inside bubblewrap, its model server and the host-tool relay bridged in. Real agents, a
scripted model server on 127.0.0.1, homes in tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_acp import acp
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    ToolErrorPart,
    ToolResultPart,
    define_harness_tool,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio]

ADD = define_harness_tool(
    name="add", description="Add two numbers.",
    input={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    execute=lambda tool_input, ctx: str(tool_input["a"] + tool_input["b"]))


def adapter(agent: str, server: Any, tmp_path: Path, model: str = "fake-model") -> Any:
    home = tmp_path / f"{agent}-home"
    home.mkdir(exist_ok=True)
    return acp(agent=agent, base_url=server.openai_base_url, model=model, home=home)


def outputs(parts: list[Any]) -> list[str]:
    return [str(p.output) if isinstance(p, ToolResultPart) else str(p.error)
            for p in parts if isinstance(p, ToolResultPart | ToolErrorPart) and p.tool_name != "add"]


@pytest.mark.parametrize("agent", [
    pytest.param("pi-acp", marks=pytest.mark.requires_runtime("pi-acp", "pi", "acp", "bwrap", "socat")),
    pytest.param("codex-acp", marks=pytest.mark.requires_runtime("codex-acp", "acp", "bwrap", "socat")),
])
async def test_acp_agents_cannot_write_outside_the_workspace(
    agent: str, tmp_path: Path, workspace: Path, outside: Path, loopback_server: int
) -> None:
    # The runtime's own file-writing built-in, by absolute path (Codex offers apply_patch
    # only to the models it knows, such as gpt-5.5).
    model = "fake-model" if agent == "pi-acp" else "gpt-5.5"
    if agent == "pi-acp":
        write = ToolCallSpec("write", {"path": str(outside / "written.txt"), "content": "pwned"})
    else:
        write = ToolCallSpec("apply_patch", f"*** Begin Patch\n*** Add File: {outside}/written.txt\n+pwned\n*** End Patch\n")
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__add", {"a": 2, "b": 3})]),
        ModelTurn(tool_calls=[write]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": f"echo pwned > {outside}/target.txt; echo tried"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": f"cat {outside}/secret.txt; echo read-tried"})]),
        ModelTurn(tool_calls=[ToolCallSpec(
            "bash", {"command": f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3; echo net-tried"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo inside > inside.txt; echo in-tried"})]),
        "done",
    ]
    with ScriptedModelServer(script) as server, anyio.fail_after(240):
        harness = HarnessAgent(harness=adapter(agent, server, tmp_path, model), tools=[ADD],
                               include_plugin_tools=False)
        sandbox = BwrapSandbox(workspace)
        async with await harness.create_session(sandbox=sandbox) as session:
            result = await harness.generate(session=session, prompt="try it")
        await sandbox.stop()
    assert result.finish_reason == "stop", result.parts
    host = [str(p.output) for p in result.parts if isinstance(p, ToolResultPart) and p.tool_name == "add"]
    assert host == ["5"], result.parts  # the relay is bridged in
    seen = "\n".join(outputs(result.parts))
    assert all(marker in seen for marker in ("tried", "read-tried", "net-tried", "in-tried")), seen
    assert (outside / "target.txt").read_text() == "original\n", seen
    assert not (outside / "written.txt").exists(), seen
    assert "TOP-SECRET-VALUE" not in seen
    assert "hello-from-host" not in seen
    assert (workspace / "inside.txt").read_text() == "inside\n"


@pytest.mark.requires_runtime("acp", "bwrap")
async def test_an_agent_on_its_own_provider_without_network_is_refused(workspace: Path) -> None:
    agent = HarnessAgent(harness=acp(agent="pi-acp"), include_plugin_tools=False)
    with pytest.raises(HarnessCapabilityUnsupportedError, match="network='host'"):
        await agent.create_session(sandbox=BwrapSandbox(workspace))
