"""Adapters whose runtime runs its own tools refuse sandboxes they cannot map (fail closed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    require_path_sandbox,
)


class NetworkConfined(LocalSandbox):
    """Stands for an OS-level sandbox (BwrapSandbox declares ``network`` the same way)."""

    network = "none"


def test_none_and_a_plain_local_sandbox_are_accepted(tmp_path: Path) -> None:
    require_path_sandbox("codex", None)
    require_path_sandbox("codex", LocalSandbox(tmp_path))


def test_any_other_sandbox_is_refused_naming_its_policy(tmp_path: Path) -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError, match=r"'codex'.*NetworkConfined.*network='none'"):
        require_path_sandbox("codex", NetworkConfined(tmp_path))


@pytest.mark.anyio
@pytest.mark.parametrize("harness", ["codex", "pi", "acp"])
async def test_runtime_adapters_refuse_an_os_sandbox_at_session_creation(harness: str, tmp_path: Path) -> None:
    options = {"command": ["true"]} if harness == "acp" else {}
    agent = HarnessAgent(harness=harness, harness_options=options)
    with pytest.raises(HarnessCapabilityUnsupportedError, match="unconfined"):
        await agent.create_session(sandbox=NetworkConfined(tmp_path))
