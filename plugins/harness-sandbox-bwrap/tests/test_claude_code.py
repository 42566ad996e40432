"""Claude Code under a BwrapSandbox session: the adapter maps the policy onto Claude Code's
own sandbox (bubblewrap + socat on Linux), or refuses at session creation. The real CLI
against a scripted model server on 127.0.0.1, homes in tmp_path."""

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
from harness_core.testing import IsolatedHome, ModelTurn, Script, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("claude-code", "bwrap", "socat")]


def agent_for(server: Any, home: IsolatedHome) -> HarnessAgent:
    options = {"base_url": server.base_url, "api_key": "test-key", "home": home.path,
               "config_dir": home["CLAUDE_CONFIG_DIR"], "setting_sources": [],
               "env": {"CLAUDE_CODE_MAX_RETRIES": "1"}}
    return HarnessAgent(harness="claude-code", harness_options=options, permission_mode="allow-all",
                        include_plugin_tools=False)


def results(parts: list[Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        if isinstance(part, ToolResultPart):
            out[part.tool_call_id] = str(part.output)
        elif isinstance(part, ToolErrorPart):
            out[part.tool_call_id] = str(part.error)
    return out


async def test_bash_is_confined_and_file_tools_are_withheld(
    scripted_model_server: Any, isolated_home: IsolatedHome, workspace: Path, outside: Path, loopback_server: int
) -> None:
    calls = {
        "toolu_write": f"echo pwned > {outside}/pwned.txt; echo pwned > {outside}/target.txt",
        "toolu_read": f"cat {outside}/secret.txt",
        "toolu_net": f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3",
        "toolu_inside": "echo inside > inside.txt && cat inside.txt",
    }
    script = Script.of(*(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": c}, id=i)]) for i, c in calls.items()),
                       "done")
    server = scripted_model_server(script)
    agent = agent_for(server, isolated_home)
    async with await agent.create_session(sandbox=BwrapSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="try it")
    assert result.finish_reason == "stop", result.parts
    seen = results(result.parts)
    assert not (outside / "pwned.txt").exists()
    assert (outside / "target.txt").read_text() == "original\n"
    assert "TOP-SECRET-VALUE" not in seen["toolu_read"]
    assert "hello-from-host" not in seen["toolu_net"] and "Connection refused" in seen["toolu_net"]
    assert "inside" in seen["toolu_inside"]
    assert (workspace / "inside.txt").read_text() == "inside\n"
    offered = server.offered_tools(0)
    assert "Bash" in offered
    assert not {"Write", "Edit", "Read", "WebFetch", "WebSearch"} & set(offered), offered


async def test_host_network_cannot_be_honoured(
    scripted_model_server: Any, isolated_home: IsolatedHome, workspace: Path
) -> None:
    agent = agent_for(scripted_model_server(Script.of("never")), isolated_home)
    with pytest.raises(HarnessCapabilityUnsupportedError, match="network='host'"):
        await agent.create_session(sandbox=BwrapSandbox(workspace, network="host"))


async def test_an_unknown_sandbox_type_is_refused(
    scripted_model_server: Any, isolated_home: IsolatedHome, workspace: Path
) -> None:
    class Opaque:
        """A sandbox Claude Code knows nothing about (delegates to a real one)."""

        def __init__(self, inner: BwrapSandbox) -> None:
            self.root, self.resolve, self.restricted, self.stop = inner.root, inner.resolve, inner.restricted, inner.stop
            self.read_text_file, self.write_text_file = inner.read_text_file, inner.write_text_file
            self.run_command, self.spawn = inner.run_command, inner.spawn

    agent = agent_for(scripted_model_server(Script.of("never")), isolated_home)
    with pytest.raises(HarnessCapabilityUnsupportedError, match="no network policy"):
        await agent.create_session(sandbox=Opaque(BwrapSandbox(workspace)))  # type: ignore[arg-type]
