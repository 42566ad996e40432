"""The pytest plugin: fixtures and the requires_runtime marker, run in a child pytest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness_core.testing import (
    IsolatedHome,
    make_isolated_home,
    missing_runtime_reason,
    skip_unless_runtime,
)

CHILD_TESTS = """
import os
import httpx
import pytest
from harness_core.testing import ModelTurn, ToolCallSpec

BODY = {"model": "m", "messages": [], "tools": [{"name": "Bash", "input_schema": {}}]}
TURN = ModelTurn(tool_calls=[ToolCallSpec("write", {"path": "x"})])


@pytest.mark.requires_runtime("exe:no-such-runtime-here")
def test_needs_missing_runtime():
    raise AssertionError("must not run")


@pytest.mark.requires_runtime("module:json", "exe:sh")
def test_needs_present_runtime():
    pass


def test_isolated_home(isolated_home):
    assert os.path.isdir(isolated_home["CODEX_HOME"])
    assert isolated_home["CLAUDE_CONFIG_DIR"] == str(isolated_home.path / ".claude")


def test_unoffered_tool_fails_at_teardown(scripted_model_server):
    server = scripted_model_server([TURN])
    assert httpx.post(server.base_url + "/v1/messages", json=BODY).status_code == 500


def test_unoffered_tool_can_be_expected(scripted_model_server):
    server = scripted_model_server([TURN], check_errors=False)
    assert httpx.post(server.base_url + "/v1/messages", json=BODY).status_code == 500
    assert server.errors
"""


def run_child(tmp_path: Path, **env: str) -> str:
    (tmp_path / "test_child.py").write_text(CHILD_TESTS, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if k != "HARNESS_REQUIRE_RUNTIMES"}
    environment.update(env)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--strict-markers",
            "-rA",
            "test_child.py",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return result.stdout + result.stderr


def test_fixtures_and_marker_in_a_child_run(tmp_path: Path) -> None:
    output = run_child(tmp_path)
    assert "PASSED test_child.py::test_needs_present_runtime" in output
    assert "PASSED test_child.py::test_isolated_home" in output
    assert "PASSED test_child.py::test_unoffered_tool_can_be_expected" in output
    assert "runtime 'exe:no-such-runtime-here' is not installed" in output
    assert "SKIPPED" in output
    assert "ERROR test_child.py::test_unoffered_tool_fails_at_teardown" in output
    assert "ToolNotOfferedError" in output
    assert "4 passed, 1 skipped, 1 error" in output  # the teardown error counts apart


def test_required_runtimes_fail_instead_of_skipping(tmp_path: Path) -> None:
    output = run_child(tmp_path, HARNESS_REQUIRE_RUNTIMES="1")
    assert "ERROR test_child.py::test_needs_missing_runtime" in output
    assert "HARNESS_REQUIRE_RUNTIMES requires it" in output


def test_runtime_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "codex"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("HARNESS_REQUIRE_RUNTIMES", raising=False)  # CI sets it
    assert missing_runtime_reason("codex") is None
    reason = missing_runtime_reason("pi")
    assert reason == "runtime 'pi' is not installed (needs executable 'pi' on PATH)"
    assert missing_runtime_reason("module:json") is None
    assert "Python module 'no_such_module_x'" in (
        missing_runtime_reason("module:no_such_module_x") or ""
    )
    skip_unless_runtime("codex")
    with pytest.raises(pytest.skip.Exception, match="runtime 'pi' is not installed"):
        skip_unless_runtime("codex", "pi")


def test_isolated_home_environment(tmp_path: Path) -> None:
    home = make_isolated_home(tmp_path / "h")
    assert isinstance(home, IsolatedHome)
    assert home["HOME"] == str(tmp_path / "h")
    for name in (
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
    ):
        assert Path(home[name]).is_dir()
        assert Path(home[name]).is_relative_to(home.path)
    base = {
        "PATH": "/bin",
        "ANTHROPIC_API_KEY": "k",
        "OPENAI_BASE_URL": "u",
        "CODEX_X": "1",
        "HOME": "/root",
    }
    env = home.environ(base, ANTHROPIC_BASE_URL="http://127.0.0.1:1")
    assert env["PATH"] == "/bin"
    assert env["HOME"] == str(home.path)
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1"
    assert "ANTHROPIC_API_KEY" not in env
    assert "OPENAI_BASE_URL" not in env
    assert "CODEX_X" not in env
    assert env["CODEX_HOME"] == home["CODEX_HOME"]
