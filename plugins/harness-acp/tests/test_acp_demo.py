"""``harness demo --harness acp`` (codex-acp by default, pi-acp by profile option) and
``harness run --harness acp`` with an agent command, offline, leaving the user's home alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FS_AGENT = Path(__file__).with_name("fs_agent.py")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_", "PI_"))}
    env["HOME"] = str(home)
    return env


@pytest.mark.parametrize(("agent", "approvals"), [
    # Codex has no read tool: it reads with a shell command, which needs an approval too
    pytest.param((), 3, marks=pytest.mark.requires_runtime("codex-acp", "acp"), id="codex-acp"),
    pytest.param(("-o", "agent=pi-acp"), 2, marks=pytest.mark.requires_runtime("pi-acp", "pi", "acp"), id="pi-acp"),
])
def test_demo_fixes_the_bug_through_an_acp_agent(tmp_path: Path, agent: tuple[str, ...], approvals: int) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    completed = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "demo", "--harness", "acp", "--yes", *agent,
         "--workspace-dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=400, env=_env(home), stdin=subprocess.DEVNULL, check=False,
    )
    out = completed.stdout + completed.stderr
    assert completed.returncode == 0, out
    assert "harness    acp" in out
    assert "● bash [built-in]" in out and "● edit [built-in]" in out and "● git_diff [host]" in out
    assert f"approvals      {approvals} approved" in out and "tests now      pass" in out
    assert "calc/stats.py edited with edit" in out
    [base] = list((tmp_path / "demo").iterdir())
    assert "return total(values) / len(values)" in (base / "calc-project" / "calc" / "stats.py").read_text()
    assert list(home.iterdir()) == [], "the agent wrote into the user's home"


@pytest.mark.requires_runtime("acp")
def test_harness_run_takes_an_agent_command(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    operations = json.dumps([{"op": "ask-write", "path": str(workspace / "hello.txt"), "content": "hi"}])
    completed = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "run", operations, "--harness", "acp", "--cwd", str(workspace),
         "-o", f"command={sys.executable} {FS_AGENT}", "-o", "name=fs-agent", "--json"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    parts = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    assert any(p["type"] == "text-delta" and "WROTE:" in p["text"] for p in parts)
    assert (workspace / "hello.txt").read_text() == "hi"
    assert parts[-1]["type"] == "finish" and parts[-1]["finishReason"] == "stop"
