"""Optional conformance sections, one per agent capability (mixed into the suite).

Each test names the capability it needs (``requires=``); on an adapter that does not
declare it (:mod:`harness_core.capabilities`), the test skips with the adapter's reason, so
every adapter runs the section and those that claim a capability are held to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from harness_core.agent.stop import step_count_is
from harness_core.agent.turn_state import TurnState
from harness_core.parts.models import ToolOutputDeniedPart, ToolResultPart
from harness_core.testing.conformance.checks import check_stream_shape, parts_of
from harness_core.testing.conformance.runner import SuiteSettings, scenario_run
from harness_core.testing.conformance.scenario import Scenario, ScenarioPrompt, builtin, say

__all__ = ["FeatureChecks"]


class FeatureChecks:
    """Capability sections (a mixin of the conformance suite; see the module docs)."""

    @pytest.mark.anyio
    async def test_stop_condition_suspends_then_continues(self, workspace: Path) -> None:
        """``stop_when=step_count_is(1)`` ends the slice after the first step (``tool-calls``,
        state ``stopped``); ``continue_generate`` runs the rest of the same turn."""
        scenario = Scenario("test_stop_condition_suspends_then_continues", (ScenarioPrompt("Two files", (
            builtin("bash", "conf-stop-1", command="echo one > stop-one.txt"),
            builtin("bash", "conf-stop-2", command="echo two > stop-two.txt"),
            say("both written"),
        )),))
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace,
                                requires=frozenset({"stop-conditions"})) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Two files", stop_when=step_count_is(1))
            check_stream_shape(first.parts)
            assert first.finish_reason == "tool-calls", first.error
            assert session.state is TurnState.STOPPED and session.has_unfinished_turn()
            rest = await agent.continue_generate(session=session, stop_when=[])
            check_stream_shape(rest.parts)
            assert rest.finish_reason == "stop", rest.error
            assert TurnState(session.state) is TurnState.IDLE  # (re-read: mypy narrowed it above)
        assert (workspace / "stop-one.txt").exists() and (workspace / "stop-two.txt").exists()
        assert "both written" in rest.all_text

    @pytest.mark.anyio
    async def test_plan_mode_runs_reads_and_edits_nothing(self, workspace: Path) -> None:
        """In ``mode="plan"`` a read-only built-in runs and the turn answers; no file changes."""
        (workspace / "plan-target.txt").write_text("before\n")
        scenario = Scenario("test_plan_mode_runs_reads_and_edits_nothing", (ScenarioPrompt("Plan", (
            builtin("read", "conf-plan-1", file_path="plan-target.txt"),
            say("1. change plan-target.txt"),
        )),))
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace,
                                requires=frozenset({"plan-mode"})) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Plan", mode="plan")
        check_stream_shape(result.parts)
        assert result.finish_reason == "stop", result.error
        assert "1. change plan-target.txt" in result.all_text
        assert [r.tool_name for r in parts_of(result.parts, ToolResultPart)] == ["read"]
        assert not parts_of(result.parts, ToolOutputDeniedPart)
        assert (workspace / "plan-target.txt").read_text() == "before\n"
