"""Fixtures for the ACP adapter tests: real ACP agents against a scripted model server.

Every agent runs in a fresh isolated home under ``tmp_path`` and talks to
``harness_core.testing``'s scripted server on 127.0.0.1; nothing reaches the internet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def codex_acp(tmp_path: Path) -> Any:
    """``make(server, **settings)``: an ``acp(agent="codex-acp")`` adapter on a scripted server, isolated."""
    from harness_acp import acp

    from harness_core.testing import make_isolated_home

    home = make_isolated_home(tmp_path / "home")

    def make(server: Any, **settings: Any) -> Any:
        settings.setdefault("model", "fake-model")
        return acp(agent="codex-acp", base_url=server.openai_base_url, home=home.path, **settings)

    return make


@pytest.fixture
def pi_acp(tmp_path: Path) -> Any:
    """``make(server, **settings)``: an ``acp(agent="pi-acp")`` adapter on a scripted server, isolated."""
    from harness_acp import acp

    def make(server: Any, **settings: Any) -> Any:
        home = tmp_path / "pi-home"
        return acp(agent="pi-acp", base_url=server.openai_base_url, model="fake-model", home=home, **settings)

    return make


@pytest.fixture(autouse=True)
def no_contract_violations(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every session a test closes must have kept the part contract (docs/adapters.md)."""
    from harness_core import HarnessSession

    seen: list[str] = []
    for name in ("destroy", "stop"):
        original = getattr(HarnessSession, name)

        def wrapped(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            seen.extend(self.contract_violations)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(HarnessSession, name, wrapped)
    yield
    assert not seen, f"the adapter broke the part contract: {seen}"
