"""Conformance checks that an approval runs exactly the call that was shown.

A paused approval is suspended, the core's record of the call in the continuation state is
altered (as a forged or corrupted state would be), and the turn is continued in a fresh
process: the agent must refuse with :class:`~harness_core.errors.TurnStateError` before
anything runs, because the adapter's runtime still holds the original call
(:class:`~harness_core.adapter.PendingRequestsTurn`). An adapter whose turns lack
``pending_requests()`` is skipped with that reason: its approvals can only be checked
against the continuation state, which must then be kept server-side (docs/agent.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import anyio
import pytest

from harness_core.errors import HarnessCapabilityUnsupportedError
from harness_core.testing.conformance.fixtures import executions
from harness_core.testing.conformance.runner import SuiteSettings, run_child, scenario_run
from harness_core.testing.conformance.scenario import Scenario, ScenarioPrompt, builtin, host, say

__all__ = ["ApprovalMatchChecks"]


class _Suite(SuiteSettings):
    child_timeout: float

    def subprocess_command(self) -> list[str]:
        raise NotImplementedError


def _expect_refused(child: Mapping[str, Any]) -> None:
    if not child.get("pending_requests"):
        pytest.skip("the adapter's turns do not implement PendingRequestsTurn.pending_requests(): approvals are "
                    "checked only against the continuation state")
    assert "refused" in child, f"a continuation state altered after the request was shown was not refused: {child}"
    assert "nothing was run" in child["refused"]


async def _forged(suite: _Suite, scenario: Scenario, workspace: Path, spec: Mapping[str, Any],
                  field: str, value: Any, requires: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Pause ``scenario`` at its approval, alter ``field`` of the recorded call, continue in a child."""
    async with scenario_run(suite, scenario, workspace, spec, requires=requires) as (agent, session, env):
        first = await agent.generate(session=session, prompt=scenario.prompts[0].prompt)
        assert first.finish_reason == "awaiting-approval", first.error
        (request,) = first.approval_requests
        try:
            suspended = await session.suspend_turn()
        except HarnessCapabilityUnsupportedError as exc:
            # Nothing can be continued elsewhere, so no altered state can reach the runtime.
            pytest.skip(f"the adapter cannot suspend a turn, so there is no state to alter: {exc}")
        state: dict[str, Any] = json.loads(json.dumps(suspended))
        state["pending_approvals"][request.approval_id][field] = value
        answer = {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}
        payload = {"factory": suite.agent_factory, "env": env, "workspace": str(workspace), "spec": spec,
                   "state": state, "continuation": answer, "only_if_pending_requests": True}
        return await anyio.to_thread.run_sync(lambda: run_child(suite.subprocess_command(), payload,
                                                                timeout=suite.child_timeout))


class ApprovalMatchChecks:
    """Mixed into :class:`~harness_core.testing.conformance.AdapterConformanceSuite`."""

    @pytest.mark.anyio
    async def test_approval_must_match_the_runtime_pending_host_call(self, workspace: Path) -> None:
        """A host call whose recorded input differs from the runtime's pending call is refused; nothing runs."""
        scenario = Scenario("test_approval_must_match_the_runtime_pending_host_call", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-9", text="shown"),
            say("recorded:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        child = await _forged(cast(_Suite, self), scenario, workspace, spec, "input", {"text": "forged"})
        _expect_refused(child)
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()

    @pytest.mark.anyio
    async def test_approval_must_match_the_runtime_pending_builtin_call(self, workspace: Path) -> None:
        """A built-in call whose recorded input differs from the runtime's pending call is refused."""
        scenario = Scenario("test_approval_must_match_the_runtime_pending_builtin_call", (
            ScenarioPrompt("Create shown.txt", (
                builtin("bash", "conf-bash-9", command="echo shown > shown.txt"),
                say("ok"),
            )),))
        child = await _forged(cast(_Suite, self), scenario, workspace, {"permission_mode": "allow-reads"},
                              "tool_call_id", "conf-bash-forged", requires=frozenset({"builtin-approvals"}))
        _expect_refused(child)
        assert not (workspace / "shown.txt").exists()
