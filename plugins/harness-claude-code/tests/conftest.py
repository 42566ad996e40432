"""Fixtures for the Claude Code adapter tests: the real CLI against a scripted model server.

Every test that starts Claude Code uses ``harness_core.testing``'s scripted Anthropic
server on 127.0.0.1 and an isolated ``HOME`` / ``CLAUDE_CONFIG_DIR`` under ``tmp_path``;
nothing reaches the internet. Test modules skip themselves, with the reason, when no
Claude Code CLI is installed (the ``claude-agent-sdk`` wheel bundles one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code._procs import alive
from harness_claude_code.testing import drive

from harness_core.testing import IsolatedHome, ScriptedModelServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def adapter_settings(isolated_home: IsolatedHome, workspace: Path) -> Callable[..., dict[str, Any]]:
    """Settings for ``claude_code(...)`` pointing at a scripted server, isolated in tmp dirs."""

    def make(server: ScriptedModelServer, **overrides: Any) -> dict[str, Any]:
        env = {"CLAUDE_CODE_MAX_RETRIES": "1", **overrides.pop("env", {})}
        return {
            "base_url": server.base_url,
            "api_key": "test-key",
            "home": isolated_home.path,
            "config_dir": isolated_home["CLAUDE_CONFIG_DIR"],
            "cwd": workspace,
            "setting_sources": [],
            "env": env,
            **overrides,
        }

    return make


@pytest.fixture
def driver() -> Callable[..., Any]:
    """The :func:`harness_claude_code.testing.drive` helper."""
    return drive


@pytest.fixture
def no_leftover_processes() -> Iterator[Callable[[list[int]], None]]:
    """``check(pids)`` asserts every listed process is gone."""

    def check(pids: list[int]) -> None:
        survivors = [pid for pid in pids if alive(pid)]
        assert not survivors, f"processes left behind: {survivors}"

    yield check
