"""``harness demo --harness pi --yes``: the demo scenario through real pi, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.requires_runtime("pi")


def test_demo_fixes_the_bug_through_pi(tmp_path: Path) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_"))}
    env["HOME"] = str(home)
    completed = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "demo", "--harness", "pi", "--yes",
         "--workspace-dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL, check=False,
    )
    out = completed.stdout + completed.stderr
    assert completed.returncode == 0, out
    assert "harness    pi" in out
    assert "● bash [built-in]" in out and "● edit [built-in]" in out and "● git_diff [host]" in out
    assert "✓ approved" in out and "tests now      pass" in out
    [base] = list((tmp_path / "demo").iterdir())
    assert "return total(values) / len(values)" in (base / "calc-project" / "calc" / "stats.py").read_text()
    assert not (home / ".pi").exists(), "pi's home stayed in the adapter's temporary directory"
