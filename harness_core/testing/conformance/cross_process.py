"""Conformance checks for built-in calls suspended in one process and continued in another.

Mixed into :class:`~harness_core.testing.conformance.AdapterConformanceSuite`. An adapter that
cannot continue a suspended turn in another process at all (it lists
``test_suspend_and_continue_in_new_process`` in ``unsupported``) skips these with that reason;
one without built-in approvals skips the built-in ones.

* A built-in shell call waiting for approval suspends to JSON; a fresh process approves it;
  the runtime there runs it once, its output is the call's one result and reaches the model,
  and nobody is asked again.
* The same call denied in the fresh process never runs and the reason reaches the model.
* A suspended state forged consistently (the core's pending call and the adapter's own copy
  of it) is refused by the runtime's own record (``pending_requests()``) and nothing runs.
  The adapter names where its state keeps its copy with
  :attr:`CrossProcessChecks.adapter_call_records`; without it the check is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

import anyio
import pytest

from harness_core.agent.results import collect_parts
from harness_core.parts.models import (
    ToolApprovalRequestPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
)
from harness_core.testing.conformance.checks import (
    check_contract,
    check_stream_shape,
    final_results,
)
from harness_core.testing.conformance.fixtures import executions
from harness_core.testing.conformance.runner import SuiteSettings, scenario_run
from harness_core.testing.conformance.scenario import Scenario, ScenarioPrompt, builtin, host, say

__all__ = ["CrossProcessChecks"]

_BUILTIN = frozenset({"builtin-approvals"})


class CrossProcessChecks:
    """The cross-process built-in checks (see the module docs).

    Class attributes:
        adapter_call_records: where in the suspended state's ``"adapter"`` object the
            adapter keeps its copy of each pending call, keyed by call id (Claude Code and pi:
            ``("calls",)``; Codex: ``("pending", "tools")``); ``None`` skips the forgery check.
    """

    adapter_call_records: ClassVar[tuple[str, ...] | None] = None
    unsupported: ClassVar[Mapping[str, str]]

    def continue_in_child(self, env: Mapping[str, Any], workspace: Path, spec: Mapping[str, Any],
                          state: Mapping[str, Any], continuation: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError  # provided by AdapterConformanceSuite

    def _skip_without_cross_process(self) -> None:
        reason = self.unsupported.get("test_suspend_and_continue_in_new_process")
        if reason is not None:
            pytest.skip(f"{type(self).__name__}: {reason}")

    async def _suspend_builtin(self, scenario: Scenario, workspace: Path, spec: Mapping[str, Any],
                               answer: Mapping[str, Any]) -> tuple[list[Any], str, dict[str, Any]]:
        """Pause on the scenario's shell call, suspend, answer it in a child: (parts, call id, child)."""
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, spec, requires=_BUILTIN) as (
                agent, session, env):
            first = await agent.generate(session=session, prompt=scenario.prompts[0].prompt)
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state = json.loads(json.dumps(await session.suspend_turn()))
            assert not (workspace / "child.txt").exists(), "the call ran before it was approved"
            continuation = {"approval_responses": [{"approval_id": request.approval_id, **answer}]}
            child = await anyio.to_thread.run_sync(
                lambda: self.continue_in_child(env, workspace, spec, state, continuation))
        check_contract(child.get("violations", ()))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        return parts, request.tool_call.tool_call_id, child

    @pytest.mark.anyio
    async def test_builtin_approval_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """An approved built-in continues in a fresh process: it runs there once, its output is
        the call's one result and reaches the model, and nobody is asked again."""
        self._skip_without_cross_process()
        scenario = Scenario("test_builtin_approval_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-x", command="echo child > child.txt; echo made-it"),
                          say("after:", echo=True)),
        ),))
        parts, call_id, child = await self._suspend_builtin(
            scenario, workspace, {"permission_mode": "allow-reads"}, {"approved": True})
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert (workspace / "child.txt").read_text().strip() == "child"
        finals = final_results(parts, call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert "made-it" in str(finals[0].output), finals[0].output
        assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)], "asked twice"
        assert "made-it" in result.all_text, f"the model did not receive the output: {result.all_text!r}"
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_builtin_denial_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """A built-in denied in a fresh process never runs; the reason reaches the model."""
        self._skip_without_cross_process()
        scenario = Scenario("test_builtin_denial_suspend_and_continue_in_new_process", (ScenarioPrompt(
            "Create it", (builtin("bash", "conf-bash-y", command="echo no > child.txt"), say("after:", echo=True)),
        ),))
        parts, call_id, _ = await self._suspend_builtin(
            scenario, workspace, {"permission_mode": "allow-reads"},
            {"approved": False, "reason": "no shell today"})
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert not (workspace / "child.txt").exists()
        denied = [p for p in parts if isinstance(p, ToolOutputDeniedPart)]
        assert [(d.tool_call_id, d.reason) for d in denied] == [(call_id, "no shell today")]
        assert "no shell today" in result.all_text

    @pytest.mark.anyio
    async def test_state_forged_in_every_part_is_refused_by_the_runtime_record(self, workspace: Path) -> None:
        """A continuation state altered consistently (the core's call AND the adapter's copy) is
        still refused, because the adapter's ``pending_requests()`` reads the runtime's record."""
        self._skip_without_cross_process()
        records = self.adapter_call_records
        if records is None:
            pytest.skip(f"{type(self).__name__} names no adapter_call_records to forge")
        scenario = Scenario("test_state_forged_in_every_part", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-f", text="shown"), say("recorded:", echo=True))),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with scenario_run(cast(SuiteSettings, self), scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
            state["pending_approvals"][request.approval_id]["input"] = {"text": "forged"}
            copy: Any = state["adapter"]
            for key in records:
                copy = copy[key]
            copy[request.tool_call.tool_call_id]["input"] = {"text": "forged"}
            answer = {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}
            child = await anyio.to_thread.run_sync(
                lambda: self.continue_in_child(env, workspace, spec, state, answer))
        assert "nothing was run" in child.get("refused", ""), child
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()
