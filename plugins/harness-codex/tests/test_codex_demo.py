"""``harness demo --harness codex --yes``: the demo scenario through the real Codex CLI, offline,
without touching the user's own Codex home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.requires_runtime("codex")


def test_demo_fixes_the_bug_through_codex(tmp_path: Path) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX"))}
    env["HOME"] = str(home)
    completed = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "demo", "--harness", "codex", "--yes",
         "--workspace-dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL, check=False,
    )
    out = completed.stdout + completed.stderr
    assert completed.returncode == 0, out
    assert "harness    codex" in out
    assert "● bash [built-in]" in out and "● edit [built-in]" in out and "● git_diff [host]" in out
    assert out.count("✓ approved") == 3, "allow-edits asks before each of the three shell commands"
    assert "✎ files changed: ~" in out and "stats.py" in out
    assert "tests now      pass" in out
    [base] = list((tmp_path / "demo").iterdir())
    assert "return total(values) / len(values)" in (base / "calc-project" / "calc" / "stats.py").read_text()
    assert not (home / ".codex").exists()
