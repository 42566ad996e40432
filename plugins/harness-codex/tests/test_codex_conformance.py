"""harness-core's adapter conformance suite, run on the real Codex CLI (offline)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from harness_codex.conformance import scenario_script

from harness_core.testing import ScenarioFailure, ScriptedModelServer
from harness_core.testing.conformance import (
    AdapterConformanceSuite,
    Scenario,
    ScenarioPrompt,
    check_stream_shape,
    host,
    say,
)


@pytest.mark.requires_runtime("codex")
class TestCodexConformance(AdapterConformanceSuite):
    agent_factory = "harness_codex.conformance:conformance_target"
    adapter_call_records = ("pending", "tools")

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        home = workspace.parent / "home"
        home.mkdir()
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.openai_base_url, "home": str(home)}
        unexpected = [e for e in server.errors if not isinstance(e, ScenarioFailure) and "ScenarioFailure" not in repr(e)]
        assert not unexpected, unexpected

    @pytest.mark.anyio
    async def test_host_tool_suspend_and_continue_in_same_process(self, workspace: Path) -> None:
        """A suspended host-tool approval continues in this process from the JSON state."""
        scenario = Scenario("test_host_tool_suspend_and_continue_in_same_process", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-s", text="same"), say("done:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            (request,) = first.approval_requests
            state = json.loads(json.dumps(await session.suspend_turn()))
            again = await agent.create_session(continue_from=state)
            try:
                result = await agent.continue_generate(session=again, approval_responses=[
                    {"approval_id": request.approval_id, "approved": True}])
            finally:
                await again.destroy()
        check_stream_shape(result.parts)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "conformance-record.txt").read_text() == "same"
        assert "recorded same" in result.all_text


class TestCodexConformanceWithoutInstalledPolicies(TestCodexConformance):
    """The suite again with no installed approval policy: allow-all scenarios run Codex with
    ``approvalPolicy: never`` (the adapter itself announces built-in calls)."""

    adapter_call_records = None  # the forgery check runs once, on the main class

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        async with super().scenario_environment(scenario, workspace) as env:
            yield {**env, "installed_plugins": False}
