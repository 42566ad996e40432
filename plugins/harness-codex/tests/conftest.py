"""Fixtures for the Codex adapter tests: the real Codex CLI against a scripted Responses server.

Every test that starts Codex uses ``harness_core.testing``'s scripted server on 127.0.0.1
and a ``HOME`` / ``CODEX_HOME`` under ``tmp_path``; nothing reaches the internet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_codex import codex
from harness_codex.conformance import NO_RETRIES, TEST_MODEL

from harness_core import HarnessAgent
from harness_core.testing import ScriptedModelServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def adapter_settings(codex_home: Path, workspace: Path) -> Callable[..., dict[str, Any]]:
    """``codex(...)`` settings pointing at a scripted server, isolated under ``tmp_path``."""

    def make(server: ScriptedModelServer, **overrides: Any) -> dict[str, Any]:
        return {"model": TEST_MODEL, "base_url": server.openai_base_url, "api_key": "test-key",
                "home": codex_home, "codex_home": codex_home / ".codex", "cwd": workspace,
                "config": dict(NO_RETRIES), **overrides}

    return make


@pytest.fixture
def make_agent(adapter_settings: Callable[..., dict[str, Any]]) -> Callable[..., HarnessAgent]:
    """``make_agent(server, adapter_overrides={}, **agent_kwargs)`` -> a HarnessAgent on Codex."""

    def make(server: ScriptedModelServer, adapter_overrides: dict[str, Any] | None = None,
             **agent_kwargs: Any) -> HarnessAgent:
        return HarnessAgent(harness=codex(**adapter_settings(server, **(adapter_overrides or {}))), **agent_kwargs)

    return make


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid`` (read from /proc)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


@pytest.fixture
def process_checks() -> Iterator[tuple[Callable[[int], bool], Callable[[int], list[int]]]]:
    yield alive, group_members
