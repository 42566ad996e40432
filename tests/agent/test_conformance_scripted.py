"""The adapter conformance suite, run against the scripted in-process adapter.

Three configurations: built-in approvals only (filtering through approvals), native
built-in filtering, and a runtime without built-in approvals (those tests skip).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest

from harness_core.agent.results import collect_parts
from harness_core.parts.models import parse_part
from harness_core.testing.conformance import (
    AdapterConformanceSuite,
    ModelResponse,
    Scenario,
    ScenarioCall,
    ScenarioPrompt,
    check_stream_shape,
    executions,
    say,
)


class TestScriptedAdapterConformance(AdapterConformanceSuite):
    """The suite, plus a scenario written with its public helpers."""

    agent_factory = "harness_core.testing.conformance:scripted_conformance_target"
    adapter_options: ClassVar[Mapping[str, Any]] = {}

    @asynccontextmanager
    async def scenario_environment(self, scenario: Scenario, workspace: Path) -> AsyncIterator[Mapping[str, Any]]:
        yield {"scenario": scenario.to_json(), "adapter_options": dict(self.adapter_options)}

    @pytest.mark.anyio
    async def test_a_call_denied_before_suspension_never_runs_in_the_new_process(self, workspace: Path) -> None:
        scenario = Scenario("parallel-denial", (ScenarioPrompt("Record both", (
            ModelResponse(calls=(ScenarioCall("conformance_record", {"text": "one"}, "r1"),
                                 ScenarioCall("conformance_record", {"text": "two"}, "r2"))),
            say("saw:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self.run_scenario(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record both")
            assert [r.approval_id for r in first.approval_requests] == ["approval-r1", "approval-r2"]
            denied = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": "approval-r1", "approved": False, "reason": "only the second"}])
            assert denied.finish_reason == "awaiting-approval"
            check_stream_shape(denied.parts)
            state = await session.suspend_turn()
            assert state["decided"]["r1"]["status"] == "denied"
            child = self.continue_in_child(env, workspace, spec, state, {
                "approval_responses": [{"approval_id": "approval-r2", "approved": True}]})
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop"
        assert [(run["input"], run["pid"]) for run in executions(workspace)] == [({"text": "two"}, child["pid"])]
        assert result.all_text == "saw: conformance_record: Execution denied: only the second | " \
                                  "conformance_record: recorded two"


class TestScriptedNativeFilteringConformance(TestScriptedAdapterConformance):
    adapter_options: ClassVar[Mapping[str, Any]] = {"supports_builtin_filtering": True}


class TestScriptedWithoutApprovalsConformance(TestScriptedAdapterConformance):
    adapter_options: ClassVar[Mapping[str, Any]] = {"supports_builtin_approvals": False,
                                                     "supports_builtin_filtering": True}

