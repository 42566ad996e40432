"""harness-core's adapter conformance suite, run on the real codex-acp agent (offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from harness_acp.conformance import scenario_script

from harness_core.testing import (
    ScenarioFailure,
    ScriptedModelServer,
    make_isolated_home,
    skip_unless_runtime,
)
from harness_core.testing.conformance import AdapterConformanceSuite, Scenario

_CROSS_PROCESS = ("an ACP agent holds a pending permission request or MCP call in its own process; a turn "
                  "paused there cannot continue in another process (suspend_turn raises "
                  "HarnessCapabilityUnsupportedError); same-process pauses are covered by the other tests")


@pytest.mark.requires_runtime("codex-acp")
class TestCodexAcpConformance(AdapterConformanceSuite):
    agent_factory = "harness_acp.conformance:conformance_target"
    unsupported: ClassVar[Mapping[str, str]] = {
        "test_suspend_and_continue_in_new_process": _CROSS_PROCESS,
        "test_client_side_tool_suspend_and_continue_in_new_process": _CROSS_PROCESS,
    }

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        skip_unless_runtime("codex-acp", "acp")
        home = make_isolated_home(workspace.parent / "home")
        with ScriptedModelServer(scenario_script(scenario), formats=["responses"]) as server:
            yield {"agent": "codex-acp", "base_url": server.openai_base_url, "home": str(home.path)}
        unexpected = [e for e in server.errors if not isinstance(e, ScenarioFailure)]
        assert not unexpected, unexpected


@pytest.mark.requires_runtime("pi-acp", "pi")
class TestPiAcpConformance(AdapterConformanceSuite):
    agent_factory = "harness_acp.conformance:conformance_target"
    unsupported: ClassVar[Mapping[str, str]] = {
        "test_suspend_and_continue_in_new_process": _CROSS_PROCESS,
        "test_client_side_tool_suspend_and_continue_in_new_process": _CROSS_PROCESS,
        "test_runtime_failure_keeps_session_usable": (
            "pi-acp 0.0.34 answers a failed model request with stopReason end_turn and no message or error, so "
            "the adapter cannot tell it from an empty answer"),
    }

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        skip_unless_runtime("pi-acp", "pi", "acp")
        home = workspace.parent / "pi-home"
        with ScriptedModelServer(scenario_script(scenario), formats=["chat"]) as server:
            yield {"agent": "pi-acp", "base_url": server.openai_base_url, "home": str(home)}
        unexpected = [e for e in server.errors if not isinstance(e, ScenarioFailure)]
        assert not unexpected, unexpected
