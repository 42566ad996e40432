from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from harness_builtin import BuiltinSession, ScriptedModelClient, create_builtin_adapter
from harness_builtin.execution import execute_builtin
from harness_builtin.tools import BUILTIN_TOOLS

from harness_core import (
    AdapterTurn,
    BuiltinApprovalRequest,
    HostToolCall,
    LocalSandbox,
    PromptRequest,
    StartRequest,
    ToolContext,
    ToolOutput,
    TurnEnd,
)

CallTool = Callable[..., Awaitable[ToolOutput]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def sandbox(workspace: Path) -> LocalSandbox:
    return LocalSandbox(workspace)


@pytest.fixture
def call_tool(sandbox: LocalSandbox) -> CallTool:
    """Validate and run a built-in tool the way the harness does."""

    async def call(name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> ToolOutput:
        tool = BUILTIN_TOOLS[name]
        value = tool.validate(arguments or {})
        context = ToolContext(tool_call_id="call-1", tool_name=name, harness_id="builtin", sandbox=sandbox)
        return await execute_builtin(tool, value, context, **kwargs)

    return call


# -- driving the adapter directly through the adapter protocol ---------------------------


Approver = Callable[[BuiltinApprovalRequest], "tuple[bool, str | None]"]
HostAnswer = Callable[[HostToolCall], ToolOutput]


async def drive(
    turn: AdapterTurn,
    *,
    approve: Approver | None = None,
    host: HostAnswer | None = None,
) -> list[object]:
    """Read a turn to its end, answering approvals and host calls."""
    events: list[object] = []
    async for event in turn.events():
        events.append(event)
        if isinstance(event, BuiltinApprovalRequest):
            approved, reason = approve(event) if approve else (True, None)
            await turn.submit_approval(event.approval_id, approved, reason)
        elif isinstance(event, HostToolCall):
            output = host(event) if host else ToolOutput(f"host result for {event.call.tool_name}")
            await turn.submit_tool_result(event.call.tool_call_id, output)
        if isinstance(event, TurnEnd):
            break
    return events


def of_type(events: Sequence[object], kind: type) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]


class Harness:
    """A built-in session on a scripted in-process model, in the test's workspace."""

    def __init__(self, sandbox: LocalSandbox) -> None:
        self.sandbox = sandbox
        self.client: ScriptedModelClient | None = None

    async def start(self, script: Any, *, start: dict[str, Any] | None = None, **settings: Any) -> BuiltinSession:
        self.client = ScriptedModelClient(script)
        adapter = create_builtin_adapter(model=self.client, **settings)
        request = StartRequest(session_id="test-session", sandbox=self.sandbox, **(start or {}))
        return await adapter.start(request)

    async def run(self, script: Any, prompt: str = "go", *, approve: Approver | None = None,
                  host: HostAnswer | None = None, start: dict[str, Any] | None = None,
                  prompt_options: dict[str, Any] | None = None, **settings: Any) -> list[object]:
        session = await self.start(script, start=start, **settings)
        turn = await session.prompt(PromptRequest(prompt=prompt, **(prompt_options or {})))
        return await drive(turn, approve=approve, host=host)


@pytest.fixture
def harness(sandbox: LocalSandbox) -> Harness:
    return Harness(sandbox)


@pytest.fixture
def driver() -> Callable[..., Awaitable[list[object]]]:
    return drive
