"""``harness demo``: the main job runs offline, on real files, and the tests really pass."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness_core.cli import cli
from harness_core.parts.models import parse_part


def _workspace(root: Path) -> Path:
    [base] = list(root.iterdir())
    return base / "calc-project"


def test_demo_fixes_the_bug_without_a_terminal(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--workspace-dir", str(tmp_path)], catch_exceptions=False)
    out = result.output
    assert result.exit_code == 0, out
    workspace = _workspace(tmp_path)
    assert str(workspace) in out
    assert "approved automatically" in out
    # Text, built-in and host tool calls, an approval, a file change.
    assert "I'll start by reading the code and its tests." in out
    assert "● read [built-in]" in out and "● bash [built-in]" in out and "● edit [built-in]" in out
    assert "● git_diff [host]" in out and "+    return total(values) / len(values)" in out
    assert "✓ approved" in out
    assert "✎ files changed: +test-report.txt" in out
    assert "All 3 tests pass." in out
    assert "tests now      pass" in out
    # The fix is really on disk, and git sees it.
    assert "return total(values) / len(values)" in (workspace / "calc" / "stats.py").read_text()
    diff = subprocess.run(["git", "diff", "--stat"], cwd=workspace, capture_output=True, text=True, check=True)
    assert "calc/stats.py" in diff.stdout
    assert "OK" in (workspace / "test-report.txt").read_text()


def test_demo_json_writes_only_parts_on_stdout(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--yes", "--json", "--workspace-dir", str(tmp_path)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    parts = [parse_part(json.loads(line)) for line in result.stdout.splitlines()]
    types = [p.type for p in parts]
    assert types[0] == "start" and types[-1] == "finish"
    assert types.count("tool-approval-request") == 2
    assert "approved by --yes" in result.stderr and "tests now      pass" in result.stderr


def test_demo_with_an_unknown_harness_fails_clearly(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--harness", "nope", "--workspace-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "no adapter plugin provides harness 'nope'" in result.stderr


def test_demo_interactive_denial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness_builtin.demo import command

    from harness_core.cli import run_command as _cli_run

    monkeypatch.setattr(command, "_stdin_is_tty", lambda: True)
    monkeypatch.setattr(_cli_run, "_stdin_is_tty", lambda: True)
    monkeypatch.setattr(_cli_run, "_read_line", lambda prompt: "n")
    result = CliRunner().invoke(cli, ["demo", "--workspace-dir", str(tmp_path)], catch_exceptions=False)
    assert "you decide" in result.output
    assert "✗ denied" in result.output
    assert "the command was denied" in result.output
    assert "2 approved" not in result.output and "0 approved, 2 denied" in result.output
    # The harness never ran the tests, but the edit (allowed under allow-edits) fixed the bug.
    assert "tests now      pass" in result.output
    assert result.exit_code == 0
