"""harness-core's adapter conformance suite, run on the real pi runtime (offline)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    ApprovalResponse,
    LocalSandbox,
    ToolApprovalRequestPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
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

from .conftest import Outcome

pytestmark = pytest.mark.requires_runtime("pi")


class TestPiConformance(AdapterConformanceSuite):
    agent_factory = "harness_pi.conformance:conformance_target"
    api = "openai-completions"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        with ScriptedModelServer(scenario_script(scenario)) as server:
            base_url = server.base_url if self.api == "anthropic-messages" else server.openai_base_url
            yield {"base_url": base_url, "api": self.api}
        unexpected = [error for error in server.errors if not isinstance(error, ScenarioFailure)]
        assert not unexpected, unexpected


    @pytest.mark.anyio
    async def test_builtin_approval_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """pi specific: an approved built-in continues in a fresh process (the step re-runs there)."""
        scenario = Scenario("test_builtin_approval_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-x", command="echo child > child.txt"), say("made:", echo=True)),
        ),))
        spec = {"permission_mode": "allow-reads"}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Create it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            call_id = request.tool_call.tool_call_id
            assert call_id.startswith("conf-bash-x")
            state = await session.suspend_turn()
            assert state["adapter"]["calls"][call_id]["kind"] == "builtin"
            assert "conformance-key" not in json.dumps(state)
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, spec, state,
                {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        check_contract(child["violations"])
        check_contract(session.contract_violations)
        result = Outcome(parts)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "child.txt").read_text().strip() == "child"
        finals = [p for p in parts if isinstance(p, ToolResultPart) and p.tool_call_id == call_id]
        assert len(finals) == 1 and "made:" in result.all_text
        assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)], "not asked twice"
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_builtin_denial_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """pi specific: a denied built-in continues in a fresh process; the reason reaches the model."""
        scenario = Scenario("test_builtin_denial_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-y", command="echo no > no.txt"), say("after:", echo=True)),
        ),))
        spec = {"permission_mode": "allow-reads"}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Create it")
            (request,) = first.approval_requests
            state = await session.suspend_turn()
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, spec, state,
                {"approval_responses": [{"approval_id": request.approval_id, "approved": False,
                                         "reason": "no shell today"}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        check_contract(child["violations"])
        check_contract(session.contract_violations)
        result = Outcome(parts)
        assert result.finish_reason == "stop", result.error
        assert not (workspace / "no.txt").exists()
        denied = [p for p in parts if isinstance(p, ToolOutputDeniedPart)]
        assert [(d.tool_call_id, d.reason) for d in denied] == [(request.tool_call.tool_call_id, "no shell today")]
        assert "no shell today" in result.all_text

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

    @pytest.mark.anyio
    async def test_state_forged_in_every_part_is_refused_by_the_runtime_record(self, workspace: Path) -> None:
        """Issue 16: a continuation state altered consistently (the core's call AND the adapter's
        copy) is still refused, because pending_requests() reads pi's saved session."""
        scenario = Scenario("test_state_forged_in_every_part", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-f", text="shown"), say("recorded:", echo=True))),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
            state["pending_approvals"][request.approval_id]["input"] = {"text": "forged"}
            state["adapter"]["calls"]["conf-rec-f"]["input"] = {"text": "forged"}
            answer = {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}
            child = await anyio.to_thread.run_sync(
                lambda: self.continue_in_child(env, workspace, spec, state, answer))
        assert "nothing was run" in child.get("refused", ""), child
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()


class TestPiConformanceResponses(TestPiConformance):
    api = "openai-responses"
    test_state_forged_in_every_part_is_refused_by_the_runtime_record = None  # type: ignore[assignment]


class TestPiConformanceAnthropic(TestPiConformance):
    api = "anthropic-messages"
    test_state_forged_in_every_part_is_refused_by_the_runtime_record = None  # type: ignore[assignment]
