"""``harness demo --harness claude-code``: the demo scenario through the real Claude Code
runtime, offline, without touching the user's own Claude configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness_claude_code.testing import CLI_MISSING_REASON

pytestmark = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")


def test_demo_fixes_the_bug_through_claude_code(tmp_path: Path) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env["HOME"] = str(home)
    completed = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "demo", "--harness", "claude-code",
         "--workspace-dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL, check=False,
    )
    out = completed.stdout + completed.stderr
    assert completed.returncode == 0, out
    assert "harness    claude-code" in out
    assert "● bash [built-in]" in out and "● edit [built-in]" in out and "● git_diff [host]" in out
    assert "tests now      pass" in out
    [base] = list((tmp_path / "demo").iterdir())
    assert "return total(values) / len(values)" in (base / "calc-project" / "calc" / "stats.py").read_text()
    # The runtime's home and config stayed in the demo's temporary directory.
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
