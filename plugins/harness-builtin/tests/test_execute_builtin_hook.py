"""The core's ``harness_execute_builtin`` hook around every built-in execution of the
built-in harness: a wrapper sees each call and its output; a wrapper that does not await
the inner execution skips it (what a durable replay does), and the output it returns,
file changes included, is what the turn reports; without ``default-executor`` a built-in
call fails the turn instead of running unwrapped.

Real tools on a real workspace; only the model is a scripted server on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from pathlib import Path
from typing import Any

import pytest
from harness_builtin import plugin as builtin_plugin
from harness_builtin.file_changes import ChangedFilesOutput

from harness_core import (
    BuiltinExecutionContext,
    HarnessAgent,
    LocalSandbox,
    ToolCall,
    ToolOutput,
    create_plugin_manager,
    hookimpl,
)
from harness_core.parts.models import ErrorPart, ToolCallPart, ToolResultPart
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


class Recorder:
    """A wrapper plugin: records each call, its context and the output it resolved to."""

    def __init__(self) -> None:
        self.seen: list[tuple[ToolCall, BuiltinExecutionContext]] = []
        self.outputs: list[ToolOutput] = []

    @hookimpl(wrapper=True)
    def harness_execute_builtin(self, call: ToolCall, context: BuiltinExecutionContext
                                ) -> Generator[None, Awaitable[ToolOutput] | None, Awaitable[ToolOutput] | None]:
        inner = yield
        self.seen.append((call, context))
        assert inner is not None

        async def recorded() -> ToolOutput:
            output = await inner
            self.outputs.append(output)
            return output

        return recorded()


class Replayer:
    """A wrapper that never runs the execution: it returns a canned output (a replay)."""

    def __init__(self, outputs: dict[str, ToolOutput]) -> None:
        self.outputs = outputs

    @hookimpl(wrapper=True)
    def harness_execute_builtin(self, call: ToolCall) -> Generator[None, Awaitable[ToolOutput] | None, Any]:
        inner = yield
        if inner is not None and hasattr(inner, "close"):
            inner.close()  # never awaited: the tool does not run

        async def replayed() -> ToolOutput:
            return self.outputs[call.tool_call_id]

        return replayed()


def _agent(server: Any, *plugins: object, env: dict[str, str] | None = None) -> HarnessAgent:
    manager = create_plugin_manager(load_entry_points=False, env=env or {}, plugins=[builtin_plugin, *plugins])
    return HarnessAgent(harness="builtin", plugin_manager=manager, include_plugin_tools=False, harness_options={
        "model": "openai:fake", "base_url": server.openai_base_url, "api_key": "k", "max_retries": 0})


async def test_a_wrapper_sees_every_builtin_execution(scripted_model_server, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "a.txt"}),
                              ToolCallSpec("grep", {"pattern": "alpha"})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": "b.txt", "content": "beta\n"})]),
        ModelTurn(tool_calls=[ToolCallSpec("edit", {"file_path": "b.txt", "old_string": "beta", "new_string": "gamma"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo made > c.txt && cat b.txt"})]),
        "done",
    )
    server = scripted_model_server(script)
    recorder = Recorder()
    agent = _agent(server, recorder)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")

    assert result.finish_reason == "stop"
    assert [call.tool_name for call, _ in recorder.seen] == ["read", "grep", "write", "edit", "bash"]
    results = [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_name != "fileChange"]
    assert [call.tool_call_id for call, _ in recorder.seen] == [p.tool_call_id for p in results]
    assert all(context.harness_id == "builtin" and context.session_id == session.session_id
               for _, context in recorder.seen)
    assert recorder.seen[-1][0].input == {"command": "echo made > c.txt && cat b.txt"}
    assert recorder.outputs[-1].content.startswith("gamma") and (workspace / "c.txt").read_text() == "made\n"
    assert isinstance(recorder.outputs[-1], ChangedFilesOutput)
    assert list(recorder.outputs[-1].changes) == [{"path": "c.txt", "kind": "created"}]
    changes = [p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_name == "fileChange"]
    assert [p.input["changes"] for p in changes] == [[{"path": "c.txt", "kind": "created"}]]


async def test_a_wrapper_that_does_not_await_skips_the_execution(scripted_model_server, workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo ran >> effects.txt"}, id="c1")]),
                       "done")
    server = scripted_model_server(script)
    canned = ChangedFilesOutput("recorded earlier", changes=({"path": "effects.txt", "kind": "created"},))
    agent = _agent(server, Replayer({"c1": canned}))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")

    assert result.finish_reason == "stop"
    assert not (workspace / "effects.txt").exists()  # the command never ran
    assert server.last_tool_result() == "recorded earlier"
    changes = [p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_name == "fileChange"]
    assert [p.input["changes"] for p in changes] == [[{"path": "effects.txt", "kind": "created"}]]


async def test_without_an_executor_a_builtin_call_fails_instead_of_running(scripted_model_server,
                                                                         workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo ran >> effects.txt"})]), "done")
    server = scripted_model_server(script, check_errors=False)
    agent = _agent(server, env={"HARNESS_DISABLE_PLUGINS": "default-executor"})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")

    assert result.finish_reason == "error"
    assert not (workspace / "effects.txt").exists()
    errors = [p.error for p in result.parts if isinstance(p, ErrorPart)]
    assert any("no plugin executed built-in 'bash'" in e for e in errors), errors
