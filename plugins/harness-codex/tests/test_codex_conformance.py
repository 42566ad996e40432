"""harness-core's adapter conformance suite, run on the real Codex CLI (offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from harness_codex.conformance import scenario_script

from harness_core.testing import ScenarioFailure, ScriptedModelServer
from harness_core.testing.conformance import AdapterConformanceSuite, Scenario


@pytest.mark.requires_runtime("codex")
class TestCodexConformance(AdapterConformanceSuite):
    agent_factory = "harness_codex.conformance:conformance_target"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        home = workspace.parent / "home"
        home.mkdir()
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.openai_base_url, "home": str(home)}
        unexpected = [e for e in server.errors if not isinstance(e, ScenarioFailure) and "ScenarioFailure" not in repr(e)]
        assert not unexpected, unexpected
