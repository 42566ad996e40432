"""The conformance test class every adapter plugin subclasses (see the package docs)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest

from harness_core.agent.harness_agent import HarnessAgent
from harness_core.agent.results import collect_parts
from harness_core.agent.session import HarnessSession
from harness_core.agent.turn_state import TurnState
from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    FinishPart,
    Part,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
)
from harness_core.testing.conformance.approval_match import ApprovalMatchChecks
from harness_core.testing.conformance.capability_sections import CapabilityChecks
from harness_core.testing.conformance.checks import (
    check_automatic_denial,
    check_stream_shape,
    final_results,
    parts_of,
)
from harness_core.testing.conformance.cross_process import CrossProcessChecks
from harness_core.testing.conformance.features import FeatureChecks
from harness_core.testing.conformance.fixtures import (
    executions,
)
from harness_core.testing.conformance.parity import ParityChecks
from harness_core.testing.conformance.runner import run_child, scenario_run
from harness_core.testing.conformance.scenario import (
    ModelResponse,
    Scenario,
    ScenarioCall,
    ScenarioPrompt,
    builtin,
    host,
    say,
)

__all__ = ["AdapterConformanceSuite"]


class AdapterConformanceSuite(ApprovalMatchChecks, ParityChecks, FeatureChecks, CapabilityChecks,
                              CrossProcessChecks):
    """Subclass as ``Test...`` in your plugin's tests; see the module docs.

    Class attributes:
        agent_factory: ``"package.module:function"`` building a :class:`ConformanceTarget`.
        unsupported: ``{test name: reason}`` for tests your runtime cannot pass.
        scenario_timeout: seconds before a scenario fails as hung.
        child_timeout: seconds the cross-process continuation may take.
    """

    agent_factory: ClassVar[str] = ""
    unsupported: ClassVar[Mapping[str, str]] = {}
    scenario_timeout: ClassVar[float] = 120.0
    child_timeout: ClassVar[float] = 180.0

    def scenario_environment(self, scenario: Scenario, workspace: Path
                             ) -> AbstractAsyncContextManager[Mapping[str, Any]]:
        """Serve ``scenario``'s model for the duration of a test; yield JSON data for the factory."""
        raise NotImplementedError(f"{type(self).__name__} must implement scenario_environment()")

    def native_input(self, call: ScenarioCall) -> Mapping[str, Any]:
        """The runtime's input for a built-in call (default: the common baseline unchanged)."""
        return call.input

    def subprocess_command(self) -> list[str]:
        """The command running the cross-process continuation (reads JSON on stdin)."""
        return [sys.executable, "-m", "harness_core.testing.conformance"]

    @pytest.fixture
    def anyio_backend(self) -> str:
        return "asyncio"

    @pytest.fixture
    def workspace(self, tmp_path: Path) -> Path:
        path = tmp_path / "workspace"
        path.mkdir()
        return path

    def run_scenario(self, scenario: Scenario, workspace: Path, spec: Mapping[str, Any] | None = None, *,
                     requires: frozenset[str] = frozenset()
                     ) -> AbstractAsyncContextManager[tuple[HarnessAgent, HarnessSession, Mapping[str, Any]]]:
        """Run ``scenario`` for an extra test of your own: ``async with self.run_scenario(...) as
        (agent, session, env):``.

        Serves the model through :meth:`scenario_environment`, builds the agent with
        ``agent_factory`` from ``spec`` (see :func:`agent_kwargs_from_spec`), opens a session,
        applies :attr:`scenario_timeout`, and destroys the session afterwards. ``requires``
        may hold ``"builtin-approvals"`` / ``"builtin-filtering"`` to skip on adapters without them.
        """
        return scenario_run(self, scenario, workspace, spec, requires=requires)

    def continue_in_child(self, env: Mapping[str, Any], workspace: Path, spec: Mapping[str, Any],
                          state: Mapping[str, Any], continuation: Mapping[str, Any]) -> dict[str, Any]:
        """Continue suspended ``state`` in a fresh Python process (blocking; run it in a thread).

        Args:
            env: the environment data from :meth:`scenario_environment`.
            workspace: the scenario workspace.
            spec: the agent spec (as for :meth:`run_scenario`); rebind ``tools_context`` here.
            state: the JSON from ``session.suspend_turn()``.
            continuation: ``{"approval_responses": [...], "tool_result_continuations": [...]}``.

        Returns:
            ``{"parts": [part JSON...], "state": <session state after>, "pid": <child pid>}``.
        """
        payload = {"factory": self.agent_factory, "env": env, "workspace": str(workspace), "spec": spec,
                   "state": state, "continuation": continuation}
        return run_child(self.subprocess_command(), payload, timeout=self.child_timeout)

    # -- the tests ------------------------------------------------------------------------

    @pytest.mark.anyio
    async def test_builtin_call_executed(self, workspace: Path) -> None:
        """The model runs a shell command through the runtime's built-in; the file appears."""
        scenario = Scenario("test_builtin_call_executed", (ScenarioPrompt("Create built-in.txt", (
            builtin("bash", "conf-bash-1", command="echo conformance > built-in.txt"),
            say("done"),
        )),))
        async with scenario_run(self, scenario, workspace) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Create built-in.txt")
        check_stream_shape(result.parts)
        calls = [c for c in parts_of(result.parts, ToolCallPart) if c.tool_name == "bash"]
        assert calls, f"no tool-call part for built-in 'bash': {[p.type for p in result.parts]}"
        call = calls[0]
        assert call.provider_executed is True
        native = agent.builtins["bash"].native_name
        if native != "bash":
            assert (call.provider_metadata or {}).get(agent.harness_id, {}).get("nativeToolName") == native
        finals = final_results(result.parts, call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), f"bash result: {finals}"
        assert (workspace / "built-in.txt").read_text().strip() == "conformance"
        assert result.finish_reason == "stop", result.error
        assert "done" in result.all_text
        assert session.state is TurnState.IDLE

    @pytest.mark.anyio
    async def test_host_tool_round_trip(self, workspace: Path) -> None:
        """A host tool executes in the host and its result reaches the model."""
        scenario = Scenario("test_host_tool_round_trip", (ScenarioPrompt("Add 2 and 3", (
            host("conformance_add", "conf-add-1", a=2, b=3),
            say("sum:", echo=True),
        )),))
        async with scenario_run(self, scenario, workspace) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Add 2 and 3")
        check_stream_shape(result.parts)
        call = next(c for c in parts_of(result.parts, ToolCallPart) if c.tool_name == "conformance_add")
        assert not call.provider_executed
        finals = final_results(result.parts, call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert str(finals[0].output) == "5"
        assert [e["tool"] for e in executions(workspace)] == ["conformance_add"]
        assert "5" in result.all_text, f"the model did not receive the result: {result.all_text!r}"
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_host_approval_pause_and_continue(self, workspace: Path) -> None:
        """user-approval pauses the slice; approving continues the same session and runs the tool."""
        scenario = Scenario("test_host_approval_pause_and_continue", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-1", text="approved"),
            say("recorded:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with scenario_run(self, scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            check_stream_shape(first.parts)
            assert first.finish_reason == "awaiting-approval"
            assert session.state is TurnState.AWAITING_APPROVAL and session.has_unfinished_turn()
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "conformance_record"
            assert executions(workspace) == []
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
        check_stream_shape(second.parts)
        assert parts_of(second.parts, ToolApprovalResponsePart)[0].approved is True
        finals = final_results(second.parts, request.tool_call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert (workspace / "conformance-record.txt").read_text() == "approved"
        assert second.finish_reason == "stop"
        assert "recorded approved" in second.all_text
        assert session.state.value == "idle"

    @pytest.mark.anyio
    async def test_builtin_approval_pause_and_continue(self, workspace: Path) -> None:
        """Under allow-reads a shell built-in asks first; approving runs it."""
        scenario = Scenario("test_builtin_approval_pause_and_continue", (ScenarioPrompt("Create approved.txt", (
            builtin("bash", "conf-bash-2", command="echo approved > approved.txt"),
            say("ok"),
        )),))
        async with scenario_run(self, scenario, workspace, {"permission_mode": "allow-reads"},
                             requires=frozenset({"builtin-approvals"})) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Create approved.txt")
            check_stream_shape(first.parts)
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "bash" and request.tool_call.provider_executed
            native = agent.builtins["bash"].native_name
            if native != "bash":
                metadata = request.tool_call.provider_metadata or {}
                assert metadata.get(agent.harness_id, {}).get("nativeToolName") == native
            assert not (workspace / "approved.txt").exists()
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
        check_stream_shape(second.parts)
        assert (workspace / "approved.txt").read_text().strip() == "approved"
        assert second.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_host_denial_never_executes(self, workspace: Path) -> None:
        """tool_approval 'denied': the automatic approval pair, execution-denied, execute never runs."""
        scenario = Scenario("test_host_denial_never_executes", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-2", text="denied"),
            say("result:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "denied"}}
        async with scenario_run(self, scenario, workspace, spec) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Record it")
        check_stream_shape(result.parts)
        (denied,) = parts_of(result.parts, ToolOutputDeniedPart)  # runtimes may rewrite call ids
        assert denied.tool_name == "conformance_record"
        check_automatic_denial(result.parts, denied.tool_call_id, "tool_approval for 'conformance_record' is denied")
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()
        assert "denied" in result.all_text.lower()
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_user_denial_reaches_model(self, workspace: Path) -> None:
        """A person's denial (with a reason) is final: the call never executes, the reason reaches the model."""
        scenario = Scenario("test_user_denial_reaches_model", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-3", text="nope"),
            say("result:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with scenario_run(self, scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            (request,) = first.approval_requests
            second = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": False, "reason": "not today"}])
        check_stream_shape(second.parts)
        (denied,) = parts_of(second.parts, ToolOutputDeniedPart)
        assert denied.reason == "not today"
        assert executions(workspace) == []
        assert "not today" in second.all_text
        assert second.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_filtering(self, workspace: Path) -> None:
        """Inactive built-ins and host tools never run, whichever way the runtime enforces it."""
        scenario = Scenario("test_filtering", (ScenarioPrompt("Try everything", (
            builtin("bash", "conf-bash-4", command="echo no > filtered.txt"),
            host("conformance_record", "conf-rec-4", text="filtered"),
            say("after", echo=True),
        )),))
        spec = {"inactive_tools": ["bash", "conformance_record"]}
        async with scenario_run(self, scenario, workspace, spec, requires=frozenset({"builtin-filtering"})) as (
                agent, session, _):
            assert {"bash", "conformance_record"} <= session.inactive_tools
            result = await agent.generate(session=session, prompt="Try everything")
        check_stream_shape(result.parts)
        assert not (workspace / "filtered.txt").exists()
        assert not (workspace / "conformance-record.txt").exists()
        assert executions(workspace) == []
        for call in parts_of(result.parts, ToolCallPart):
            if call.tool_name in ("bash", "conformance_record"):
                finals = final_results(result.parts, call.tool_call_id)
                assert all(not isinstance(f, ToolResultPart) for f in finals), finals
        for denied in parts_of(result.parts, ToolOutputDeniedPart):
            assert denied.tool_name in (denied.reason or ""), denied
        assert not parts_of(result.parts, ToolApprovalRequestPart)
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """A paused approval suspends to JSON (no tool context inside) and continues in a fresh process."""
        scenario = Scenario("test_suspend_and_continue_in_new_process", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-5", text="from-child"),
            say("child:", echo=True),
        )),))
        secret = "SECRET-CONTEXT-7f3a"
        spec = {"tool_approval": {"conformance_record": "user-approval"},
                "tools_context": {"conformance_whoami": {"user": secret}}}
        async with scenario_run(self, scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state = await session.suspend_turn()
            assert session.state is TurnState.SUSPENDED
            text = json.dumps(state)
            assert secret not in text, "tools_context leaked into suspended state"
            assert state["version"] == 1 and request.approval_id in state["pending_approvals"]
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, {**spec, "tools_context": {"conformance_whoami": {"user": "child-user"}}},
                json.loads(text), {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        finals = final_results(parts, request.tool_call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert (workspace / "conformance-record.txt").read_text() == "from-child"
        runs = executions(workspace)
        assert len(runs) == 1 and runs[0]["pid"] == child["pid"] != os.getpid(), runs
        assert "recorded from-child" in result.all_text
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_client_side_tool_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """A client-side tool pauses the turn; its pending call survives suspension; the result continues it elsewhere."""
        scenario = Scenario("test_client_side_tool_suspend_and_continue_in_new_process", (ScenarioPrompt("Pick", (
            host("conformance_pick", "conf-pick-1", question="color?"),
            say("picked:", echo=True),
        )),))
        async with scenario_run(self, scenario, workspace) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Pick")
            assert first.finish_reason == "awaiting-tool-result", first.error
            (pending,) = first.pending_tool_calls
            assert pending.tool_name == "conformance_pick"
            state = await session.suspend_turn()
            assert pending.tool_call_id in state["pending_tool_results"]
            child = await anyio.to_thread.run_sync(lambda: self.continue_in_child(
                env, workspace, {}, state,
                {"tool_result_continuations": [{"tool_call_id": pending.tool_call_id, "output": "teal"}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert "teal" in result.all_text

    @pytest.mark.anyio
    async def test_abort(self, workspace: Path) -> None:
        """Aborting a running turn ends the stream with an abort part; the session takes the next prompt."""
        scenario = Scenario("test_abort", (
            ScenarioPrompt("Wait", (builtin("bash", "conf-bash-5", command="sleep 30"), say("never"))),
            ScenarioPrompt("Again", (say("recovered"),)),
        ))
        async with scenario_run(self, scenario, workspace) as (agent, session, _):
            result = agent.stream(session=session, prompt="Wait")
            parts: list[Part] = []
            async for part in result.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart) and part.tool_name == "bash":
                    result.abort("conformance abort")
            assert isinstance(parts[-1], AbortPart), [p.type for p in parts]
            assert session.state is TurnState.IDLE and not session.has_unfinished_turn()
            assert await result.finish_reason == "aborted"
            again = await agent.generate(session=session, prompt="Again")
        assert again.finish_reason == "stop", again.error
        assert "recovered" in again.all_text

    @pytest.mark.anyio
    async def test_runtime_failure_keeps_session_usable(self, workspace: Path) -> None:
        """A failing model gives an error part and finish 'error'; the next prompt works."""
        scenario = Scenario("test_runtime_failure_keeps_session_usable", (
            ScenarioPrompt("Fail", (ModelResponse(fail="conformance: the model is unavailable"),)),
            ScenarioPrompt("Again", (say("back"),)),
        ))
        async with scenario_run(self, scenario, workspace) as (agent, session, _):
            failed = await agent.generate(session=session, prompt="Fail")
            again = await agent.generate(session=session, prompt="Again")
        check_stream_shape(failed.parts)
        assert failed.finish_reason == "error"
        assert parts_of(failed.parts, ErrorPart), [p.type for p in failed.parts]
        assert isinstance(failed.parts[-1], FinishPart)
        assert again.finish_reason == "stop", again.error
        assert "back" in again.all_text


# -- the child process -------------------------------------------------------------------------
