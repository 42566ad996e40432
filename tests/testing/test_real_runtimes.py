"""The scripted servers drive the real runtimes, offline (skipped when a runtime is missing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core.testing import IsolatedHome, ModelTurn, ToolCallSpec
from harness_core.testing.pytest_plugin import ScriptedServerFactory

MCP_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "calc", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
        result = {"tools": [{"name": "add", "description": "Add numbers.", "inputSchema": schema}]}
    elif method == "tools/call":
        arguments = params["arguments"]
        result = {"content": [{"type": "text", "text": str(arguments["a"] + arguments["b"])}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


@pytest.mark.requires_runtime("claude")
def test_claude_code(
    scripted_model_server: ScriptedServerFactory, isolated_home: IsolatedHome, tmp_path: Path
) -> None:
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    target = tmp_path / "out.txt"
    server = scripted_model_server(
        [
            ModelTurn(
                "Running.",
                reasoning="plan",
                tool_calls=[ToolCallSpec("bash", {"command": "echo from-bash"})],
            ),
            ModelTurn(tool_calls=[ToolCallSpec("write", {"path": str(target), "content": "hi"})]),
            "All done.",
        ]
    )
    env = dict(
        isolated_home,
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_MAX_RETRIES="1",
        IS_SANDBOX="1",
    )
    options = ClaudeAgentOptions(env=env, permission_mode="bypassPermissions", cwd=str(tmp_path))

    async def run() -> list[Any]:
        return [message async for message in query(prompt="go", options=options)]

    messages = anyio.run(run)
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.result == "All done."
    assert target.read_text() == "hi"
    assert any("from-bash" in (r.last_tool_result or "") for r in server.model_requests)
    assert "Bash" in server.offered_tools()
    assert all(
        r.path == "/v1/messages" and r.query == "beta=true"
        for r in server.requests
        if r.is_model_call
    )


@pytest.mark.requires_runtime("codex")
def test_codex_exec_with_a_namespaced_mcp_tool(
    scripted_model_server: ScriptedServerFactory, isolated_home: IsolatedHome, tmp_path: Path
) -> None:
    mcp = tmp_path / "mcp_calc.py"
    mcp.write_text(MCP_SERVER, encoding="utf-8")
    server = scripted_model_server(
        [
            ModelTurn(
                "Running.", tool_calls=[ToolCallSpec("bash", {"command": "echo from-codex"})]
            ),
            ModelTurn(tool_calls=[ToolCallSpec("mcp__calc__add", {"a": 2, "b": 3})]),
            "All done.",
        ],
        formats=["responses"],
    )
    config = f"""
model = "fake-model"
model_provider = "loopback"
approval_policy = "never"
sandbox_mode = "danger-full-access"
[model_providers.loopback]
name = "loopback"
base_url = "{server.openai_base_url}"
wire_api = "responses"
env_key = "LOOPBACK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
[mcp_servers.calc]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(mcp))}]
"""
    Path(isolated_home["CODEX_HOME"], "config.toml").write_text(config, encoding="utf-8")
    argv = ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "-C", str(tmp_path)]
    argv += ["--disable", "plugins", "-c", 'web_search="disabled"', "go"]
    completed = subprocess.run(
        argv,
        env=isolated_home.environ(LOOPBACK_API_KEY="dummy"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    events = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    items = [e["item"] for e in events if e["type"] == "item.completed"]
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert any(
        i["type"] == "command_execution" and "from-codex" in i["aggregated_output"] for i in items
    )
    mcp_calls = [i for i in items if i["type"] == "mcp_tool_call"]
    assert mcp_calls and mcp_calls[0]["tool"] == "add"
    assert items[-1] == {**items[-1], "type": "agent_message", "text": "All done."}
    assert "mcp__calc__add" in server.offered_tools()


@pytest.mark.requires_runtime("pi")
@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
def test_pi_rpc(
    scripted_model_server: ScriptedServerFactory,
    isolated_home: IsolatedHome,
    tmp_path: Path,
    api: str,
) -> None:
    target = tmp_path / "out.txt"
    server = scripted_model_server(
        [
            ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo from-pi"})]),
            ModelTurn(
                tool_calls=[ToolCallSpec("write", {"file_path": str(target), "content": "hi"})]
            ),
            "All done.",
        ]
    )
    provider = {
        "baseUrl": server.openai_base_url,
        "api": api,
        "apiKey": "sk-dummy",
        "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}],
    }
    models = Path(isolated_home["PI_CODING_AGENT_DIR"], "models.json")
    models.write_text(json.dumps({"providers": {"loopback": provider}}), encoding="utf-8")
    argv = [
        "pi",
        "--mode",
        "rpc",
        "--provider",
        "loopback",
        "--model",
        "fake-model",
        "--no-session",
    ]
    with subprocess.Popen(
        argv,
        cwd=tmp_path,
        env=isolated_home.environ(PI_OFFLINE="1"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"id": "p1", "type": "prompt", "message": "go"}) + "\n")
        process.stdin.flush()
        ends = []
        for line in process.stdout:
            event = json.loads(line)
            if event.get("type") == "tool_execution_end":
                ends.append(event)
            if event.get("type") == "agent_end":
                break
        process.stdin.close()
        process.terminate()
    assert [e["toolName"] for e in ends] == ["bash", "write"]
    assert not any(e["isError"] for e in ends)
    assert target.read_text() == "hi"
    assert server.model_calls == 3
