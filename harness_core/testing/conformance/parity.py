"""Conformance checks of stream parity with the AI SDK's ``HarnessAgent`` (mixed into the suite).

Each check ports one behaviour of the reference harness that a UI or approval gate built
for the reference relies on; :class:`~harness_core.testing.conformance.AdapterConformanceSuite`
inherits them, so every adapter runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from harness_core.parts.models import ToolErrorPart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing.conformance.checks import (
    check_automatic_denial,
    check_stream_shape,
    parts_of,
)
from harness_core.testing.conformance.fixtures import DenyShellPolicy
from harness_core.testing.conformance.runner import SuiteSettings, scenario_run
from harness_core.testing.conformance.scenario import Scenario, ScenarioPrompt, builtin, host, say

__all__ = ["ParityChecks"]


class ParityChecks:
    """Parity tests (a mixin of the conformance suite, which provides the
    :class:`~harness_core.testing.conformance.runner.SuiteSettings` members; see the module docs)."""

    @pytest.mark.anyio
    async def test_client_side_continuation_is_one_step(self, workspace: Path) -> None:
        """Continuing with a client-side result shows the model's next step only: the result
        the consumer supplied is submitted to the runtime, never emitted again as a part."""
        scenario = Scenario("test_client_side_continuation_is_one_step", (ScenarioPrompt("Pick", (
            host("conformance_pick", "conf-pick-2", question="color?"),
            say("picked:", echo=True),
        )),))
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Pick")
            assert first.finish_reason == "awaiting-tool-result", first.error
            (pending,) = first.pending_tool_calls
            done = await agent.continue_generate(session=session, tool_result_continuations=[
                {"tool_call_id": pending.tool_call_id, "output": "teal"}])
        check_stream_shape(done.parts)
        assert done.finish_reason == "stop", done.error
        assert "teal" in done.all_text
        repeated = [p for p in done.parts if isinstance(p, ToolResultPart | ToolErrorPart)
                    and p.tool_call_id == pending.tool_call_id]
        assert not repeated, f"the supplied result was emitted again: {repeated}"
        steps = [p.type for p in done.parts].count("start-step")
        assert steps == 1, f"the continuation has {steps} steps, the reference one: {[p.type for p in done.parts]}"
        assert len(done.steps) == 1

    @pytest.mark.anyio
    async def test_builtin_denied_by_policy(self, workspace: Path) -> None:
        """A policy denying shell built-ins stops the command: the automatic approval pair, then the denial."""
        scenario = Scenario("test_builtin_denied_by_policy", (ScenarioPrompt("Create denied.txt", (
            builtin("bash", "conf-bash-3", command="echo no > denied.txt"),
            say("after", echo=True),
        )),))
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, {"deny_shell": True},
                             requires=frozenset({"builtin-approvals"})) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Create denied.txt")
        check_stream_shape(result.parts)
        assert not (workspace / "denied.txt").exists()
        (denied,) = parts_of(result.parts, ToolOutputDeniedPart)
        assert denied.tool_name == "bash"
        check_automatic_denial(result.parts, denied.tool_call_id, DenyShellPolicy.REASON)
        assert not result.approval_requests and result.finish_reason == "stop"
