"""Stream parity with the AI SDK's HarnessAgent on the built-in harness (issue 23): display
paths (a given sandbox, and the harness's own ``cwd`` workspace) and automatic denials."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessAgent,
    LocalSandbox,
    ToolCall,
    TurnState,
    hookimpl,
)
from harness_core.parts.models import ToolCallPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_automatic_denial

pytestmark = pytest.mark.anyio


class Recording:
    """Records the inputs the approval hook sees; denies shell commands."""

    def __init__(self) -> None:
        self.inputs: dict[str, Any] = {}

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        self.inputs[call.tool_name] = call.input
        if call.tool_name == "bash":
            return ApprovalDecision(ApprovalStatus.DENIED, "no shell here")
        return None


@pytest.fixture
def root(workspace: Path) -> Path:
    """The workspace, resolved (display paths are stripped of the resolved root)."""
    return workspace.resolve()


def agent_for(server: Any, **options: Any) -> HarnessAgent:
    harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key",
                       "max_retries": 0, **options.pop("harness_options", {})}
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


@pytest.mark.parametrize("own_workspace", [False, True], ids=["sandbox", "cwd"])
async def test_display_paths_on_the_builtin_harness(scripted_model_server, root: Path,
                                                    own_workspace: bool) -> None:
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text("print(1)\n")
    absolute = str(root / "src" / "calc.py")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": absolute}),
                              ToolCallSpec("glob", {"pattern": "**/*.py", "path": str(root)})]),
        "Done.",
    ))
    policy = Recording()
    if own_workspace:
        agent = agent_for(server, harness_options={"cwd": str(root)}, plugins=[policy])
        session = await agent.create_session()
    else:
        agent = agent_for(server, plugins=[policy])
        session = await agent.create_session(sandbox=LocalSandbox(root))
    async with session:
        result = await agent.generate(session=session, prompt="read it")
    assert result.finish_reason == "stop", result.error
    inputs = {p.tool_name: p.input for p in result.parts if isinstance(p, ToolCallPart)}
    assert inputs["read"] == {"file_path": "src/calc.py"}
    assert inputs["glob"]["path"] == "."
    outputs = " ".join(str(p.output) for p in result.parts if isinstance(p, ToolResultPart))
    assert "print(1)" in outputs and str(root) not in outputs
    # The tools worked with the absolute path (the read succeeded); the policy saw it too.
    assert policy.inputs["read"] == {"file_path": absolute}


async def test_a_policy_denial_on_the_builtin_harness_emits_the_automatic_pair(scripted_model_server,
                                                                               workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch made.txt"})]), "Stopped."))
    agent = agent_for(server, plugins=[Recording()])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="touch")
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart)]
    check_automatic_denial(result.parts, call.tool_call_id, "no shell here")
    assert not result.approval_requests and result.finish_reason == "stop"
    assert not (workspace / "made.txt").exists()


async def test_the_state_follows_the_parts_the_consumer_read(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of("Hello there."))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = agent.stream(session=session, prompt="hi")
        seen = []
        async for part in result.full_stream:
            seen.append((part.type, session.state))
            if part.type == "finish-step":
                await anyio.sleep(0.05)  # the turn is over in the runner; the consumer has not read `finish`
                assert session.state is TurnState.RUNNING
        assert seen[0] == ("start", TurnState.RUNNING)
        assert all(state is TurnState.RUNNING for _, state in seen[:-1])
        assert seen[-1] == ("finish", TurnState.IDLE)
