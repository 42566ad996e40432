"""Fixtures for the ACP adapter tests: real ACP agents against a scripted model server.

Every agent runs in a fresh isolated home under ``tmp_path`` and talks to
``harness_core.testing``'s scripted server on 127.0.0.1; nothing reaches the internet.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path.resolve()
