"""End to end: the built-in harness, a scripted model server, and the rules deciding.

A denied call never runs, and its reason reaches the model (it is in the next request the
model server receives). Covers the policy registered in code and the installed
entry-point plugin reading the project's ``.harness/rules.toml``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("harness_builtin")

from harness_rules import RulesPolicy

from harness_core import LocalSandbox
from harness_core.agent.harness_agent import HarnessAgent
from harness_core.parts.models import ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("TOKEN=hunter2-secret\n")
    (root / "src" / "app.py").write_text("print('app')\n")
    return root


def _agent(server: Any, **options: Any) -> HarnessAgent:
    harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key",
                       "max_retries": 0}
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


def _bodies(server: Any) -> str:
    return "\n".join(json.dumps(r.body) for r in server.requests if r.is_model_call)


SCRIPT = Script.of(
    ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": ".env"})]),
    ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "ls src && rm -rf src"})]),
    ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": "."})]),
    ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "cat src/app.py"})]),
    "Done.",
)


async def _run_and_check(server: Any, agent: HarnessAgent, workspace: Path, source: str) -> None:
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="clean up")
    assert result.finish_reason == "stop", result.parts
    denied = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert [p.tool_name for p in denied] == ["read", "bash", "grep"]
    # the denied calls never ran
    assert (workspace / "src" / "app.py").exists()
    bodies = _bodies(server)
    assert "hunter2-secret" not in bodies
    # their reasons reached the model, naming the rule and where it is written
    assert denied[0].reason is not None and "read(./.env)" in denied[0].reason and source in denied[0].reason
    assert denied[1].reason is not None and "bash(rm *)" in denied[1].reason and "rm -rf src" in denied[1].reason
    assert denied[2].reason is not None and "search root contains" in denied[2].reason
    for part in denied:
        assert part.reason is not None
        assert part.reason.split(":")[0] in bodies
    # an allowed call ran
    outputs = [p.output for p in result.parts if isinstance(p, ToolResultPart) and p.tool_name == "bash"]
    assert any("print('app')" in str(o) for o in outputs)


async def test_policy_in_code_denies_and_explains(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(SCRIPT)
    policy = RulesPolicy({"deny": ["read(./.env)", "bash(rm *)"], "allow": ["bash(cat *)", "bash(ls *)"]})
    agent = _agent(server, plugins=[policy], permission_mode="allow-reads")
    await _run_and_check(server, agent, workspace, "<code>")


async def test_installed_plugin_reads_the_project_file(scripted_model_server: Any, workspace: Path) -> None:
    (workspace / ".harness").mkdir()
    rules = workspace / ".harness" / "rules.toml"
    rules.write_text('[permissions]\nallow = ["bash(cat *)", "bash(ls *)"]\ndeny = ["read(./.env)", "bash(rm *)"]\n')
    server = scripted_model_server(SCRIPT)
    agent = _agent(server, permission_mode="allow-reads")
    assert "rules" in {r.name for r in agent.plugin_manager.records() if r.status == "loaded"}
    await _run_and_check(server, agent, workspace, f"{rules}:3")


async def test_ask_pauses_for_approval_even_under_allow_all(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "git status; touch pushed"})]),
        "Paused.",
    ))
    policy = RulesPolicy({"ask": ["bash(touch *)"], "allow": ["bash(git status)"]})
    agent = _agent(server, plugins=[policy], permission_mode="allow-all")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
        requests = [p for p in result.parts if p.type == "tool-approval-request"]
        assert len(requests) == 1
    assert not (workspace / "pushed").exists()
