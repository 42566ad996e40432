"""harness-core's adapter conformance suite, run on the real Claude Code runtime (offline)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_claude_code.conformance import ScenarioFailure, scenario_script
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import (
    ToolApprovalRequestPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
)
from harness_core.agent.results import collect_parts
from harness_core.testing import ScriptedModelServer, make_isolated_home
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

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")


@needs_cli
class TestClaudeCodeConformance(AdapterConformanceSuite):
    agent_factory = "harness_claude_code.conformance:conformance_target"

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        home = make_isolated_home(workspace.parent / "home")
        with ScriptedModelServer(scenario_script(scenario)) as server:
            yield {"base_url": server.base_url, "home": str(home.path), "config_dir": home["CLAUDE_CONFIG_DIR"]}
        unexpected = [error for error in server.errors if "ScenarioFailure" not in repr(error)
                      and not isinstance(error, ScenarioFailure)]
        assert not unexpected, unexpected

    @pytest.mark.anyio
    async def test_builtin_approval_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """Claude Code specific: an approved built-in continues in a fresh process (by re-running the request)."""
        scenario = Scenario("test_builtin_approval_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-x", command="echo child > child.txt"), say("made:", echo=True)),
        ),))
        spec = {"permission_mode": "allow-reads"}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Create it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.provider_metadata == {"claude-code": {"nativeToolName": "Bash"}}
            state = await session.suspend_turn()
            assert state["adapter"]["calls"]["conf-bash-x"]["kind"] == "builtin"
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, spec, state,
                {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "child.txt").read_text().strip() == "child"
        finals = [p for p in parts if isinstance(p, ToolResultPart) and p.tool_call_id == "conf-bash-x"]
        assert len(finals) == 1
        assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)], "not asked twice"
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_builtin_denial_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """Claude Code specific: a denied built-in continues losslessly in a fresh process."""
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
    async def test_state_forged_in_every_part_is_refused_by_the_runtime_record(self, workspace: Path) -> None:
        """Issue 16: a continuation state altered consistently (the core's call AND the adapter's
        copy) is still refused, because pending_requests() reads Claude Code's transcript."""
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
