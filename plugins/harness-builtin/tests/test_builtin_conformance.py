"""harness-core's adapter conformance suite, run on the built-in harness with a scripted
Anthropic model server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from harness_builtin.conformance import ScenarioFailure, scenario_script

from harness_core.testing import ScriptedModelServer
from harness_core.testing.conformance import AdapterConformanceSuite, Scenario


class TestBuiltinConformance(AdapterConformanceSuite):
    agent_factory = "harness_builtin.conformance:conformance_target"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.base_url}
        unexpected = [e for e in server.errors if not isinstance(e, ScenarioFailure) and "ScenarioFailure" not in repr(e)]
        assert not unexpected, unexpected
