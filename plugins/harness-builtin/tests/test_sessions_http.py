"""Through HarnessAgent and a scripted HTTP model server: both wire formats, provider
errors from fault injection, file changes, abort, and sessions continued or resumed in
another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import LocalSandbox
from harness_core.agent.answers import ApprovalResponse
from harness_core.agent.harness_agent import HarnessAgent
from harness_core.parts.models import ErrorPart, TextDeltaPart, ToolCallPart, ToolResultPart
from harness_core.testing import Fault, ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


def agent_for(server: Any, wire: str = "anthropic", **options: Any) -> HarnessAgent:
    if wire == "anthropic":
        harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url}
    else:
        harness_options = {"model": "openai:fake-model", "base_url": server.openai_base_url}
    harness_options.update(api_key="test-key", max_retries=0)
    harness_options.update(options.pop("harness_options", {}))
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_full_loop_over_http(scripted_model_server, workspace: Path, wire: str) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    script = Script.of(
        ModelTurn("Let me look.", tool_calls=[ToolCallSpec("read", {"file_path": "calc.py"})]),
        ModelTurn(tool_calls=[ToolCallSpec("edit", {"file_path": "calc.py", "old_string": "a - b",
                                                    "new_string": "a + b"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"})]),
        "Fixed: add() now adds.",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, wire)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="fix calc.py")
    assert result.finish_reason == "stop"
    assert result.text.endswith("Fixed: add() now adds.")
    outputs = {p.tool_name: p.output for p in result.parts if isinstance(p, ToolResultPart)}
    assert outputs["bash"] == "5\n[exit code: 0]"
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert server.model_calls == 4
    assert "read" in server.offered_tools(0) and "bash" in server.offered_tools(0)
    # The last request carries the earlier tool results.
    assert "5" in (server.last_tool_result() or "")


@pytest.mark.parametrize(
    ("fault", "error_type", "advice"),
    [
        (Fault.http_error(401), "authentication", "ANTHROPIC_API_KEY"),
        (Fault.http_error(429), "rate-limit", "wait and try again"),
        (Fault.http_error(529), "overloaded", "overloaded"),
        (Fault.http_error(400, message="model: unknown model"), "bad-request", "check the model name"),
        (Fault.http_error(500), "server-error", "try again later"),
        (Fault.cut_stream(3), "incomplete-response", "ended before the model finished"),
        (Fault.drop("message_delta", "message_stop"), "incomplete-response", "ended before the model finished"),
        (Fault.stream_error(2), "server-error", "try again later"),
    ],
)
async def test_provider_errors_become_error_parts(scripted_model_server, workspace: Path, fault: Fault,
                                                  error_type: str, advice: str) -> None:
    server = scripted_model_server(Script.of("never seen", "Recovered."), faults=[fault])
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="hi")
        errors = [p for p in result.parts if isinstance(p, ErrorPart)]
        assert result.finish_reason == "error"
        assert errors and errors[0].error_type == error_type, errors
        assert advice in errors[0].error
        # The session stays usable: the next prompt works (the fault hit call 0 only).
        again = await agent.generate(session=session, prompt="again")
        assert again.finish_reason == "stop"


async def test_openai_auth_error_names_the_openai_variable(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of("x"), faults=[Fault.http_error(401)])
    agent = agent_for(server, "openai")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="hi")
    error = next(p for p in result.parts if isinstance(p, ErrorPart))
    assert error.error_type == "authentication" and "OPENAI_API_KEY" in error.error


async def test_sdk_retries_follow_max_retries(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of("Hello after a retry."),
                                   faults=[Fault.http_error(529, at=0, retry_after=0)])
    agent = agent_for(server, harness_options={"max_retries": 1})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="hi")
    assert result.finish_reason == "stop" and result.text == "Hello after a retry."
    assert server.model_calls == 2


async def test_bash_file_changes_are_reported(scripted_model_server, workspace: Path) -> None:
    (workspace / "old.txt").write_text("old")
    (workspace / "keep.txt").write_text("keep")
    command = "echo new > new.txt && rm old.txt && echo more >> keep.txt && mkdir -p d && touch d/e.txt"
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})]),
                                             "done"))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="shuffle files")
    changes = [p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_name == "fileChange"]
    assert len(changes) == 1 and changes[0].dynamic and changes[0].provider_executed
    assert changes[0].input["changes"] == [
        {"path": "d/e.txt", "kind": "created"},
        {"path": "keep.txt", "kind": "modified"},
        {"path": "new.txt", "kind": "created"},
        {"path": "old.txt", "kind": "deleted"},
    ]


async def test_abort_kills_a_running_command(scripted_model_server, workspace: Path) -> None:
    command = "echo $$ > pid.txt; sleep 60"
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})]),
                                             "after abort"))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = agent.stream(session=session, prompt="run it")
        started = time.monotonic()
        seen: list[str] = []
        async for part in result.full_stream:
            seen.append(part.type)
            if part.type == "tool-call":
                with anyio.move_on_after(10):
                    while not (workspace / "pid.txt").exists():  # noqa: ASYNC110
                        await anyio.sleep(0.02)
                result.abort("user pressed stop")
        assert seen[-1] == "abort"
        assert time.monotonic() - started < 20
        pid = int((workspace / "pid.txt").read_text())
        await anyio.sleep(0.2)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        # The session is usable again and its history stays valid.
        again = await agent.generate(session=session, prompt="and now?")
        assert again.finish_reason == "stop"


_CONTINUE = textwrap.dedent(
    """
    import json, sys, anyio
    from harness_core import LocalSandbox
    from harness_core.agent.harness_agent import HarnessAgent
    from harness_core.agent.answers import ApprovalResponse

    base_url, workspace, state_file, mode = sys.argv[1:5]
    agent = HarnessAgent(harness="builtin", permission_mode="allow-edits", include_plugin_tools=False,
                         harness_options={"model": "anthropic:fake-model", "base_url": base_url,
                                          "api_key": "k", "max_retries": 0})

    async def main():
        state = json.loads(open(state_file).read())
        if mode == "continue":
            session = await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace))
            pending = list(session.pending_approvals)
            result = await agent.continue_generate(
                session=session, approval_responses=[ApprovalResponse(pending[0], True)])
        else:
            session = await agent.create_session(resume_from=state, sandbox=LocalSandbox(workspace))
            result = await agent.generate(session=session, prompt="what did you do?")
        print(json.dumps({"finish": result.finish_reason, "text": result.text,
                          "types": [p.type for p in result.parts]}))
        await session.destroy()

    anyio.run(main)
    """
)


def _other_process(*args: str) -> dict[str, Any]:
    completed = subprocess.run([sys.executable, "-c", _CONTINUE, *args], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


async def test_suspend_and_continue_in_another_process(scripted_model_server, workspace: Path,
                                                       tmp_path: Path) -> None:
    script = Script.of(
        ModelTurn("Running the tests.", tool_calls=[ToolCallSpec("bash", {"command": "echo ran > ran.txt"})]),
        "The command ran.",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, permission_mode="allow-edits")
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="run it")
    assert first.finish_reason == "awaiting-approval"
    state = await session.suspend_turn()
    state_file = tmp_path / "state.json"
    state_file.write_text(json.dumps(state))
    assert not (workspace / "ran.txt").exists()
    outcome = _other_process(server.base_url, str(workspace), str(state_file), "continue")
    assert outcome["finish"] == "stop"
    assert outcome["text"] == "The command ran."
    assert "tool-approval-response" in outcome["types"] and "tool-result" in outcome["types"]
    assert (workspace / "ran.txt").read_text() == "ran\n"


async def test_denial_before_suspension_is_never_executed(scripted_model_server, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch one.txt"}, id="c1"),
                              ToolCallSpec("bash", {"command": "touch two.txt"}, id="c2")]),
        "ok",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, permission_mode="allow-edits")
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="go")
    ids = sorted(session.pending_approvals)
    assert len(ids) == 2
    # Deny the first now; suspend with the second pending; continue elsewhere (same process here).
    partial = await agent.continue_generate(session=session, approval_responses=[ApprovalResponse(ids[0], False, "no")])
    assert partial.finish_reason == "awaiting-approval"
    state = json.loads(json.dumps(await session.suspend_turn()))
    again = await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace))
    final = await agent.continue_generate(session=again, approval_responses=[ApprovalResponse(ids[1], True)])
    assert final.finish_reason == "stop"
    assert not (workspace / "one.txt").exists()
    assert (workspace / "two.txt").exists()
    del first
    await again.destroy()


async def test_stop_and_resume_in_another_process(scripted_model_server, workspace: Path, tmp_path: Path) -> None:
    def respond(request: Any) -> str:
        if request.turn_index == 0:
            return "I listed nothing yet."
        return f"I remember {request.messages[0].text!r}."

    server = scripted_model_server(Script(respond=respond))
    agent = agent_for(server)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    await agent.generate(session=session, prompt="remember the word banana")
    state = await session.stop()
    state_file = tmp_path / "resume.json"
    state_file.write_text(json.dumps(state))
    outcome = _other_process(server.base_url, str(workspace), str(state_file), "resume")
    assert outcome["text"] == "I remember 'remember the word banana'."
    assert [p for p in outcome["types"] if p == "text-delta"]


async def test_streaming_text_arrives_in_deltas(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of("A fairly long answer that the server sends in chunks."), chunk_size=8)
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="hi")
    deltas = [p.text for p in result.parts if isinstance(p, TextDeltaPart)]
    assert len(deltas) > 3 and "".join(deltas) == "A fairly long answer that the server sends in chunks."
