"""Lifecycle on real pi: compaction, abort, a killed pi, model errors with retries, stop / resume."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from harness_pi import PiSession
from harness_pi.testing import alive, eventually

from harness_core import AbortPart, ErrorPart, LocalSandbox, ToolCallPart, ToolResultPart
from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec

from .conftest import Outcome, PiAgentFactory

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]


def _pi(session: Any) -> PiSession:
    adapter_session = session.adapter_session
    assert isinstance(adapter_session, PiSession)
    return adapter_session


async def test_compact_gives_a_compaction_part_with_the_summary(pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = Script(turns=("First answer, long enough to be worth summarizing. " * 8, "After compaction."),
                    side_answer="SUMMARY: the user said hi twice.")
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            await agent.generate(session=session, prompt="hi")
            parts = [part async for part in session.compact().full_stream]
            after = await agent.generate(session=session, prompt="still there?")
        last = server.model_requests[-1]
    result = Outcome(parts)
    assert result.finish_reason == "stop", result.error
    calls = [p for p in parts if isinstance(p, ToolCallPart) and p.tool_name == "compaction"]
    results = [p for p in parts if isinstance(p, ToolResultPart) and p.tool_name == "compaction"]
    assert len(calls) == 1 and calls[0].dynamic and calls[0].provider_executed
    assert "the user said hi twice" in results[0].output["summary"]
    assert results[0].output["trigger"] == "manual"
    assert after.finish_reason == "stop", after.error
    assert "the user said hi twice" in " ".join(m.text for m in last.messages)


async def test_abort_ends_the_turn_and_leaves_no_process(pi_agent: PiAgentFactory, workspace: Path) -> None:
    command = f"touch started && {sys.executable} -c 'import time; time.sleep(120)'"
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="s1")]), "never", "Next turn."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = agent.stream(session=session, prompt="sleep")
            parts: list[Any] = []
            children: list[int] = []
            async for part in result.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart) and part.tool_call_id == "s1":
                    await eventually(lambda: (workspace / "started").exists()
                                     and len(_pi(session).runtime_pids) >= 2, what="the command runs")
                    children = [p for p in _pi(session).runtime_pids if p != _pi(session).pi_pid]
                    result.abort("test abort")
            assert isinstance(parts[-1], AbortPart)
            await eventually(lambda: not any(alive(pid) for pid in children), timeout=10, what="children end")
            assert [p for p in _pi(session).runtime_pids if p != _pi(session).pi_pid] == []
            again = await agent.generate(session=session, prompt="next")
        pi_pids = list(children)
    assert children, "the shell and python ran under pi"
    assert again.finish_reason == "stop", again.error
    assert not any(alive(pid) for pid in pi_pids)


async def test_killed_pi_is_runtime_crashed_and_the_next_prompt_recovers(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    command = f"{sys.executable} -c 'import time; time.sleep(120)'"
    script = Script(turns=(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="k1")]),),
                    final_text="Back again.")
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = agent.stream(session=session, prompt="go")
            parts: list[Any] = []
            async for part in result.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart):
                    pid = _pi(session).pi_pid
                    assert pid is not None
                    os.kill(pid, signal.SIGKILL)
            await eventually(lambda: _pi(session).runtime_pids == [], timeout=10, what="pi's tools end with it")
            again = await agent.generate(session=session, prompt="hello?")
    errors = [p for p in parts if isinstance(p, ErrorPart)]
    assert errors and errors[0].error_type == "runtime-crashed" and "exited unexpectedly" in errors[0].error
    assert again.finish_reason == "stop", again.error
    assert again.text == "Back again."
    assert any(m.text == "go" for m in server.model_requests[-1].messages), "the same conversation"


async def test_model_500_is_retried_by_pi_inside_the_turn(pi_agent: PiAgentFactory, workspace: Path) -> None:
    with ScriptedModelServer(["Recovered."], faults=[Fault.http_error(500, at=0, message="overloaded")]) as server:
        agent = pi_agent(server, pi_settings={"max_retries": 2})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="hi")
        calls = server.model_calls
    assert result.finish_reason == "stop", result.error
    assert result.text == "Recovered." and calls == 2
    assert not [p for p in result.parts if isinstance(p, ErrorPart)]


async def test_model_500_after_retries_is_an_error_and_the_session_stays_usable(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    with ScriptedModelServer(["Back."], faults=[Fault.http_error(500, at=[0, 1], message="down for good")]) as server:
        agent = pi_agent(server, pi_settings={"max_retries": 1})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            failed = await agent.generate(session=session, prompt="hi")
            again = await agent.generate(session=session, prompt="again")
    assert failed.finish_reason == "error"
    assert failed.error is not None and "down for good" in failed.error
    assert again.finish_reason == "stop" and again.text == "Back."


async def test_stop_and_resume_from_continue_the_conversation_elsewhere(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    with ScriptedModelServer(["Noted: the code word is heron.", "You said heron."]) as server:
        agent = pi_agent(server)
        session = await agent.create_session(sandbox=LocalSandbox(workspace))
        await agent.generate(session=session, prompt="The code word is heron.")
        home = _pi(session).temp_dir
        state = await session.stop()
        await session.destroy()
        assert not home.exists()
        assert "api_key" not in str(state) and "conformance-key" not in str(state)
        resumed = await agent.create_session(resume_from=state, sandbox=LocalSandbox(workspace))
        async with resumed:
            again = await agent.generate(session=resumed, prompt="What was the code word?")
        history = [m.text for m in server.model_requests[-1].messages]
    assert again.text == "You said heron."
    assert "The code word is heron." in history and "Noted: the code word is heron." in history


async def test_no_api_key_or_inherited_variable_reaches_pi(
        pi_agent: PiAgentFactory, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    with ScriptedModelServer([ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "env > env.txt"})]), "ok"]) as s:
        agent = pi_agent(s, pi_settings={"api_key": "sk-given-key"})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            await agent.generate(session=session, prompt="dump env")
        auth = [r.headers.get("authorization") for r in s.requests if r.is_model_call]
    env = (workspace / "env.txt").read_text()
    assert "sk-should-not-leak" not in env and "PI_OFFLINE=1" in env
    assert auth and all(a is not None for a in auth)


async def test_abandoning_a_paused_turn_runs_nothing_and_the_session_goes_on(
        pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch never.txt"}, id="p1")]), "Later."]
    with ScriptedModelServer(Script(turns=tuple(script), final_text="Fresh start.")) as server:
        agent = pi_agent(server, permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="touch it")
            assert first.finish_reason == "awaiting-approval", first.error
            await session.abort_turn("changed my mind")
            again = await agent.generate(session=session, prompt="something else")
            leftover = [p for p in _pi(session).runtime_pids if p != _pi(session).pi_pid]
    assert not (workspace / "never.txt").exists()
    assert again.finish_reason == "stop", again.error
    assert leftover == []
