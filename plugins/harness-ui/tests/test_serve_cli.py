"""``harness serve`` refuses bad settings before it binds anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def serve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness_core.cli", "serve", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_an_unknown_harness_exits_2_naming_the_installed_ones(tmp_path: Path) -> None:
    completed = serve("--harness", "nope", "--cwd", str(tmp_path), cwd=tmp_path)
    assert completed.returncode == 2
    assert "harness: error: no adapter plugin provides harness 'nope'" in completed.stderr
    assert "builtin" in completed.stderr and "listening" not in completed.stdout


def test_a_missing_workspace_is_a_usage_error(tmp_path: Path) -> None:
    completed = serve("--cwd", str(tmp_path / "missing"), cwd=tmp_path)
    assert completed.returncode == 2 and "is not a directory" in completed.stderr


def test_serve_is_a_harness_command(tmp_path: Path) -> None:
    completed = subprocess.run([sys.executable, "-m", "harness_core.cli", "serve", "--help"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0
    for option in ("--harness", "--demo", "--port", "--store", "--permission-mode"):
        assert option in completed.stdout
    assert "127.0.0.1" in completed.stdout


def test_the_demo_refuses_other_harnesses(tmp_path: Path) -> None:
    """A runtime's home must stay out of the user's own; only builtin is served as a demo."""
    completed = serve("--demo", "--harness", "claude-code", cwd=tmp_path)
    assert completed.returncode == 2 and "--demo serves harness 'builtin' only" in completed.stderr
