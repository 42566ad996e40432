"""Stream parity with the AI SDK's HarnessAgent: display paths and automatic denials (issue 23)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessConfigurationError,
    LocalSandbox,
    ToolCall,
    TurnState,
    define_harness_tool,
    hookimpl,
)
from harness_core.parts.models import ToolCallPart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import CallBuiltin, CallHost, ChangeFile, EchoResults, ScriptedAdapter
from harness_core.testing.conformance import check_automatic_denial


class SeenByPolicy:
    """Records what the approval hook sees; denies writes to ``secret.txt``."""

    def __init__(self) -> None:
        self.inputs: dict[str, Any] = {}

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        self.inputs[call.tool_call_id] = call.input
        if call.provider_executed and "secret.txt" in str(call.input):
            return ApprovalDecision(ApprovalStatus.DENIED, "secret.txt is protected")
        return None


def locate_tool(seen: list[Any]) -> Any:
    def execute(value: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(value["path"])
        return {"found": [{"file": value["path"], "line": 3}], "root": str(Path(value["path"]).parent.parent)}

    return define_harness_tool(name="locate", description="Locate.", execute=execute,
                               input={"type": "object", "properties": {"path": {"type": "string"}},
                                      "required": ["path"]})


@pytest.fixture
def root(workspace: Path) -> Path:
    """The workspace, resolved (display paths are stripped of the resolved root)."""
    return workspace.resolve()


def calls_by_id(parts: list[Any]) -> dict[str, Any]:
    return {p.tool_call_id: p for p in parts if isinstance(p, ToolCallPart)}


@pytest.mark.anyio
@pytest.mark.parametrize("with_sandbox", [True, False], ids=["sandbox", "adapter-workspace"])
async def test_display_paths_are_relative_in_parts_and_absolute_for_tools_and_policies(
        root: Path, with_sandbox: bool) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.ts").write_text("export {}\n")
    seen: list[Any] = []
    policy = SeenByPolicy()
    adapter = ScriptedAdapter([[[
        CallHost("locate", {"path": str(root / "src" / "a.ts")}, id="h1"),
        CallBuiltin("read", {"file_path": str(root / "src" / "a.ts")}, id="r1"),
        ChangeFile(str(root / "src" / "b.ts"), "add"),
    ], [EchoResults("saw")]]], workspace=None if with_sandbox else root)
    agent = adapter.agent(tools=[locate_tool(seen)], plugins=[policy])
    session = await agent.create_session(sandbox=LocalSandbox(root) if with_sandbox else None)
    result = await agent.generate(session=session, prompt="go")
    calls = calls_by_id(result.parts)
    assert calls["h1"].input == {"path": "src/a.ts"}
    assert calls["r1"].input == {"file_path": "src/a.ts"}
    (change,) = [p for p in calls.values() if p.tool_name == "fileChange"]
    assert str(root) not in str(change.input) and "src/b.ts" in str(change.input)
    (located,) = [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "h1"]
    assert located.output == {"found": [{"file": "src/a.ts", "line": 3}], "root": "."}
    assert located.input == {"path": "src/a.ts"}
    # Tools, the runtime and policies got the absolute paths.
    assert seen == [str(root / "src" / "a.ts")]
    assert policy.inputs["h1"] == {"path": str(root / "src" / "a.ts")}
    assert policy.inputs["r1"] == {"file_path": str(root / "src" / "a.ts")}
    assert adapter.executed == ["r1"]
    assert "export {}" in result.text


@pytest.mark.anyio
async def test_approval_requests_show_display_paths_and_the_tool_runs_with_absolute_ones(root: Path) -> None:
    seen: list[Any] = []
    adapter = ScriptedAdapter([[[CallHost("locate", {"path": str(root / "x.py")}, id="h1")], [EchoResults("saw")]]],
                              workspace=root)
    agent = adapter.agent(tools=[locate_tool(seen)], tool_approval={"locate": "user-approval"})
    session = await agent.create_session()
    paused = await agent.generate(session=session, prompt="go")
    (request,) = paused.approval_requests
    assert request.tool_call.input == {"path": "x.py"} and request.is_automatic is None
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": request.approval_id, "approved": True}])
    assert seen == [str(root / "x.py")] and done.finish_reason == "stop"


@pytest.mark.anyio
async def test_absolute_display_paths_keep_the_prefix_and_bad_values_are_refused(root: Path) -> None:
    adapter = ScriptedAdapter([[[CallHost("locate", {"path": str(root / "x.py")}, id="h1")], [EchoResults("saw")]]])
    agent = adapter.agent(tools=[locate_tool([])], display_paths="absolute")
    result = await agent.generate(session=await agent.create_session(sandbox=LocalSandbox(root)), prompt="go")
    assert calls_by_id(result.parts)["h1"].input == {"path": str(root / "x.py")}
    with pytest.raises(HarnessConfigurationError, match="display_paths must be 'relative' or 'absolute'"):
        adapter.agent(display_paths="short")


@pytest.mark.anyio
async def test_a_denied_tool_approval_emits_the_automatic_approval_pair() -> None:
    seen: list[Any] = []
    adapter = ScriptedAdapter([[[CallHost("locate", {"path": "/elsewhere/x"}, id="d1")], [EchoResults("saw")]]])
    agent = adapter.agent(tools=[locate_tool(seen)], tool_approval={"locate": "denied"})
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    check_automatic_denial(result.parts, "d1", "tool_approval for 'locate' is denied")
    assert [p.type for p in result.parts][2:6] == ["tool-call", "tool-approval-request", "tool-approval-response",
                                                  "tool-output-denied"]
    assert not result.approval_requests and result.finish_reason == "stop"
    assert session.state is TurnState.IDLE and not session.pending_approvals
    assert seen == [] and "Execution denied" in result.text


@pytest.mark.anyio
async def test_a_policy_denial_of_a_builtin_emits_the_automatic_pair(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallBuiltin("write", {"file_path": "secret.txt", "content": "x"}, id="w1")],
                                [EchoResults("saw")]]], workspace=workspace)
    agent = adapter.agent(plugins=[SeenByPolicy()])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    check_automatic_denial(result.parts, "w1", "secret.txt is protected")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.provider_executed and not (workspace / "secret.txt").exists()
    assert not result.approval_requests


async def states_while_reading(agent: Any, session: Any, **kwargs: Any) -> list[tuple[str, TurnState]]:
    """``(part type, session.state)`` as the consumer reads each part of one slice."""
    if "prompt" in kwargs:
        result = agent.stream(session=session, **kwargs)
    else:
        result = agent.continue_stream(session=session, **kwargs)
    seen = []
    async for part in result.full_stream:
        seen.append((part.type, session.state))
    return seen


@pytest.mark.anyio
async def test_the_state_changes_when_the_consumer_reads_the_part_that_announces_it() -> None:
    pick = define_harness_tool(name="pick", description="Pick.", input={"type": "object"})
    adapter = ScriptedAdapter([[[CallHost("pick", {}, id="p1")], [EchoResults("saw")]]])
    agent = adapter.agent(tools=[pick])
    session = await agent.create_session()
    result = agent.stream(session=session, prompt="go")
    assert session.state is TurnState.IDLE  # nothing read yet
    seen = []
    async for part in result.full_stream:
        seen.append((part.type, session.state))
        if part.type == "finish-step":
            await anyio.sleep(0.05)  # the runner has long finished: the state must still wait for `finish`
            assert session.state is TurnState.RUNNING
    assert seen[0] == ("start", TurnState.RUNNING)
    assert all(state is TurnState.RUNNING for _, state in seen[:-1])
    assert seen[-1] == ("finish", TurnState.AWAITING_TOOL_RESULT)
    resumed = await states_while_reading(agent, session, tool_result_continuations=[
        {"tool_call_id": "p1", "output": "x"}])
    assert resumed[0] == ("start", TurnState.RUNNING)
    assert all(state is TurnState.RUNNING for _, state in resumed[:-1])
    assert resumed[-1] == ("finish", TurnState.IDLE) and session.state is TurnState.IDLE


@pytest.mark.anyio
async def test_a_path_that_only_contains_the_workspace_root_is_shown_as_it_is(root: Path) -> None:
    # "/mnt<root>/a.txt" is not under the workspace: stripping "<root>/" from it showed "/mnta.txt"
    other = f"/mnt{root}/a.txt"
    adapter = ScriptedAdapter([[[CallHost("locate", {"path": other}, id="h1"),
                                 CallBuiltin("bash", {"command": f"cat {other} {root}/b.txt >{root}/c.txt"}, id="b1")],
                                [EchoResults("saw")]]], workspace=root)
    agent = adapter.agent(tools=[locate_tool([])])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    calls = calls_by_id(result.parts)
    assert calls["h1"].input == {"path": other}
    assert calls["b1"].input == {"command": f"cat {other} b.txt >c.txt"}
