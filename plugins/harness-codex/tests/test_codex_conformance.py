"""harness-core's adapter conformance suite, run on the real Codex CLI (offline)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_codex.conformance import scenario_script

from harness_core import (
    ToolApprovalRequestPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
)
from harness_core.agent.results import collect_parts
from harness_core.testing import ScenarioFailure, ScriptedModelServer
from harness_core.testing.conformance import (
    AdapterConformanceSuite,
    Scenario,
    ScenarioPrompt,
    builtin,
    check_stream_shape,
    executions,
    host,
    say,
)


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

    @pytest.mark.anyio
    async def test_builtin_approval_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """Codex specific: an approved shell command suspended across processes is run by the new
        app-server (``thread/shellCommand``); its output is the call's one result and reaches the model."""
        scenario = Scenario("test_builtin_approval_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-x", command="echo child > child.txt; echo made-it"),
                          say("after:", echo=True)),
        ),))
        spec = {"permission_mode": "allow-reads"}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Create it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.provider_metadata == {"codex": {"nativeToolName": "exec_command"}}
            state = await session.suspend_turn()
            assert list(state["adapter"]["pending"]["approvals"]) == [request.approval_id]
            assert not (workspace / "child.txt").exists()
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, spec, state,
                {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "child.txt").read_text().strip() == "child"
        finals = [p for p in parts if isinstance(p, ToolResultPart | ToolErrorPart) and p.tool_call_id == "conf-bash-x"]
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart) and "made-it" in finals[0].output
        assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)], "not asked twice"
        assert "made-it" in result.all_text
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_builtin_denial_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """Codex specific: a denied built-in continues losslessly in a fresh process."""
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
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert not (workspace / "no.txt").exists()
        denied = [p for p in parts if isinstance(p, ToolOutputDeniedPart)]
        assert [(d.tool_call_id, d.reason) for d in denied] == [("conf-bash-y", "no shell today")]
        assert "no shell today" in result.all_text

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

    @pytest.mark.anyio
    async def test_state_forged_in_every_part_is_refused_by_the_runtime_record(self, workspace: Path) -> None:
        """Issue 16: a continuation state altered consistently (the core's call AND the adapter's
        copy) is still refused, because pending_requests() reads Codex's rollout."""
        scenario = Scenario("test_state_forged_in_every_part", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-f", text="shown"), say("recorded:", echo=True))),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
            state["pending_approvals"][request.approval_id]["input"] = {"text": "forged"}
            state["adapter"]["pending"]["tools"]["conf-rec-f"]["input"] = {"text": "forged"}
            answer = {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}
            child = await anyio.to_thread.run_sync(
                lambda: self.continue_in_child(env, workspace, spec, state, answer))
        assert "nothing was run" in child.get("refused", ""), child
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()


class TestCodexConformanceWithoutInstalledPolicies(TestCodexConformance):
    """The suite again with no installed approval policy: allow-all scenarios run Codex with
    ``approvalPolicy: never`` (the adapter itself announces built-in calls)."""

    test_state_forged_in_every_part_is_refused_by_the_runtime_record = None  # type: ignore[assignment]

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        async with super().scenario_environment(scenario, workspace) as env:
            yield {**env, "installed_plugins": False}
