"""harness-core's adapter conformance suite, run on the real pi runtime (offline)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ApprovalResponse,
    LocalSandbox,
)
from harness_core.testing import ScenarioFailure, ScriptedModelServer
from harness_core.testing.conformance import (
    AdapterConformanceSuite,
    Scenario,
    ScenarioPrompt,
    builtin,
    check_contract,
    check_stream_shape,
    executions,
    host,
    say,
    scenario_script,
)

pytestmark = pytest.mark.requires_runtime("pi")


class TestPiConformance(AdapterConformanceSuite):
    agent_factory = "harness_pi.conformance:conformance_target"
    adapter_call_records = ("calls",)
    api = "openai-completions"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        with ScriptedModelServer(scenario_script(scenario)) as server:
            base_url = server.base_url if self.api == "anthropic-messages" else server.openai_base_url
            yield {"base_url": base_url, "api": self.api}
        unexpected = [error for error in server.errors if not isinstance(error, ScenarioFailure)]
        assert not unexpected, unexpected

    @pytest.mark.anyio
    async def test_suspended_state_holds_no_api_key(self, workspace: Path) -> None:
        """pi specific: the API key pi was started with never reaches the suspended state."""
        scenario = Scenario("test_suspended_state_holds_no_api_key", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-k", command="echo k > k.txt"), say("after")),
        ),))
        async with self.run_scenario(scenario, workspace, {"permission_mode": "allow-reads"}) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Create it")
            assert first.finish_reason == "awaiting-approval", first.error
            state = json.dumps(await session.suspend_turn())
        assert "conformance-key" not in state

    @pytest.mark.anyio
    async def test_suspend_and_continue_in_the_same_process(self, workspace: Path) -> None:
        """A suspended host-tool approval continues in this process; the tool runs once."""
        scenario = Scenario("test_suspend_and_continue_in_the_same_process", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-9", text="same-process"),
            say("here:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            (request,) = first.approval_requests
            state = await session.suspend_turn()
            continued = await agent.create_session(continue_from=json.loads(json.dumps(state)),
                                                   sandbox=LocalSandbox(workspace))
            async with continued:
                result = await agent.continue_generate(session=continued, approval_responses=[
                    ApprovalResponse(approval_id=request.approval_id, approved=True)])
        check_stream_shape(result.parts)
        check_contract(continued.contract_violations)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "conformance-record.txt").read_text() == "same-process"
        assert len(executions(workspace)) == 1
        assert "recorded same-process" in result.all_text


class TestPiConformanceResponses(TestPiConformance):
    api = "openai-responses"
    adapter_call_records = None  # the forgery check runs once, on the main class


class TestPiConformanceAnthropic(TestPiConformance):
    api = "anthropic-messages"
    adapter_call_records = None  # the forgery check runs once, on the main class
