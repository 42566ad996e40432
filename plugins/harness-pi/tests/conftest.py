"""Shared fixtures of harness-pi's tests: a workspace and agents on real pi."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness_pi import pi

from harness_core import ErrorPart, FinishPart, HarnessAgent, TextDeltaPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


PiAgentFactory = Callable[..., HarnessAgent]


@pytest.fixture
def pi_agent(workspace: Path) -> PiAgentFactory:
    """``pi_agent(server, api=..., pi_settings={...}, **agent_kwargs)``: an agent on real pi."""

    def build(server: Any, *, api: str = "openai-completions", pi_settings: dict[str, Any] | None = None,
              **agent_kwargs: Any) -> HarnessAgent:
        base_url = server.base_url if api == "anthropic-messages" else server.openai_base_url
        settings: dict[str, Any] = {"model": "fake-model", "base_url": base_url, "api": api,
                                    "cwd": workspace, "max_retries": 1, "retry_delay_ms": 50,
                                    "keep_recent_tokens": 1, **(pi_settings or {})}
        return HarnessAgent(harness=pi(**settings), **agent_kwargs)

    return build


class Outcome:
    """What a list of stream parts says: finish reason, error text, all text (model text)."""

    def __init__(self, parts: list[Any]) -> None:
        finishes = [p for p in parts if isinstance(p, FinishPart)]
        self.finish_reason = finishes[-1].finish_reason if finishes else ("aborted" if parts else "unknown")
        errors = [p.error for p in parts if isinstance(p, ErrorPart)]
        self.error = "; ".join(errors) if errors else None
        self.all_text = "".join(p.text for p in parts if isinstance(p, TextDeltaPart))
