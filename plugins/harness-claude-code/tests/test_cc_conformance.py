"""harness-core's adapter conformance suite, run on the real Claude Code runtime (offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code.conformance import ScenarioFailure, scenario_script
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core.testing import ScriptedModelServer, make_isolated_home
from harness_core.testing.conformance import (
    AdapterConformanceSuite,
    Scenario,
)

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")


@needs_cli
class TestClaudeCodeConformance(AdapterConformanceSuite):
    agent_factory = "harness_claude_code.conformance:conformance_target"
    adapter_call_records = ("calls",)

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        home = make_isolated_home(workspace.parent / "home")
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.base_url, "home": str(home.path), "config_dir": home["CLAUDE_CONFIG_DIR"]}
        unexpected = [error for error in server.errors if "ScenarioFailure" not in repr(error)
                      and not isinstance(error, ScenarioFailure)]
        assert not unexpected, unexpected

