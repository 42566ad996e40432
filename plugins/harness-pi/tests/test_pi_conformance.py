"""harness-core's adapter conformance suite, run on the real pi runtime (offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from harness_core.testing import ScenarioFailure, ScriptedModelServer
from harness_core.testing.conformance import AdapterConformanceSuite, Scenario, scenario_script

pytestmark = pytest.mark.requires_runtime("pi")


class TestPiConformance(AdapterConformanceSuite):
    agent_factory = "harness_pi.conformance:conformance_target"
    api = "openai-completions"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.openai_base_url, "api": self.api}
        unexpected = [error for error in server.errors if not isinstance(error, ScenarioFailure)]
        assert not unexpected, unexpected


class TestPiConformanceResponses(TestPiConformance):
    api = "openai-responses"
