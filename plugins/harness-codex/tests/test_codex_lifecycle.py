"""Lifecycle on the real Codex CLI: usage, model errors, a killed runtime, abort, compaction,
stop / resume_from."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_codex import plugin as codex_plugin
from harness_codex.testing import eventually

from harness_core import (
    AbortPart,
    ErrorPart,
    HarnessAgent,
    ToolCallPart,
    ToolResultPart,
    create_plugin_manager,
)
from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec

from .conftest import alive, group_members

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


def _pid(session: Any) -> int:
    pid = session.adapter_session.pid
    assert pid is not None, "the app-server is not running"
    return int(pid)


async def test_text_usage_and_isolation(make_agent: Callable[..., HarnessAgent], codex_home: Path) -> None:
    script = Script.of(ModelTurn("hello there", usage={"input_tokens": 120, "output_tokens": 7}))
    with ScriptedModelServer(script) as server:
        agent = make_agent(server)
        session = await agent.create_session()
        try:
            result = await agent.generate(session=session, prompt="hi")
            pid = _pid(session)
            environ = (await anyio.Path(f"/proc/{pid}/environ").read_bytes()).split(b"\0")
        finally:
            await session.destroy()
    assert result.finish_reason == "stop" and result.text == "hello there"
    assert result.usage.input_tokens == 120 and result.usage.output_tokens == 7
    env = dict(e.decode().split("=", 1) for e in environ if b"=" in e)
    assert env["CODEX_HOME"] == str(codex_home / ".codex") and env["HOME"] == str(codex_home)
    assert not [k for k in env if k.endswith("_API_KEY") and k != "HARNESS_CODEX_API_KEY"]
    assert (codex_home / ".codex" / "config.toml").stat().st_mode & 0o077 == 0


async def test_model_500_is_an_error_part_and_the_session_recovers(make_agent: Callable[..., HarnessAgent]) -> None:
    script = Script.of("first answer fails", "second answer",
                       faults=[Fault(at=(0,), status=500, message="scripted overload")])
    with ScriptedModelServer(script) as server:
        agent = make_agent(server)
        session = await agent.create_session()
        try:
            failed = await agent.generate(session=session, prompt="one")
            again = await agent.generate(session=session, prompt="two")
        finally:
            await session.destroy()
    assert failed.finish_reason == "error"
    (error,) = [p for p in failed.parts if isinstance(p, ErrorPart)]
    assert error.error and error.error_type == "model-error"
    assert again.finish_reason == "stop", again.error


async def test_killed_runtime_is_runtime_crashed_and_next_prompt_resumes_the_thread(
        make_agent: Callable[..., HarnessAgent], workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 30"}, id="c-sleep")]),
                       "recovered")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server)
        session = await agent.create_session()
        try:
            stream = agent.stream(session=session, prompt="wait")
            parts = []
            async for part in stream.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart) and part.tool_name == "bash":
                    os.killpg(_pid(session), signal.SIGKILL)
            assert await stream.finish_reason == "error"
            assert "exited" in (session.adapter_session.runtime_error or "")
            again = await agent.generate(session=session, prompt="again")
        finally:
            await session.destroy()
        second = [r for r in server.requests if r.is_model_call][-1]
    (error,) = [p for p in parts if isinstance(p, ErrorPart)]
    assert error.error_type == "runtime-crashed" and "exited" in error.error
    assert again.finish_reason == "stop" and "recovered" in again.text
    assert "sleep 30" in str(second.body), "the resumed thread lost its history"


@pytest.mark.parametrize("approvals", [True, False])
async def test_abort_interrupts_and_leaves_no_process(make_agent: Callable[..., HarnessAgent], approvals: bool) -> None:
    """With approvals the core announces the call; without (no policy plugins, allow-all) the
    adapter emits the tool-call at ``item/started``, while the command runs."""
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 300"}, id="c-long")]),
                       "never", "next")
    manager = None if approvals else create_plugin_manager(load_entry_points=False, plugins=[codex_plugin])
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, plugin_manager=manager)
        session = await agent.create_session()
        assert session.builtin_approvals is approvals
        try:
            stream = agent.stream(session=session, prompt="wait")
            parts = []
            async for part in stream.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart) and part.tool_name == "bash":
                    sleepers = await _sleepers(_pid(session))
                    stream.abort("test abort")
            assert isinstance(parts[-1], AbortPart)
            await eventually(lambda: not any(alive(pid) for pid in sleepers), what="the command was killed")
            again = await agent.generate(session=session, prompt="next")
            server_pid = _pid(session)
            tree = [server_pid, *group_members_all(server_pid)]
        finally:
            await session.destroy()
    assert again.finish_reason == "stop", again.error
    assert not group_members(server_pid), "the app-server's process group survived destroy"
    assert not [pid for pid in tree if alive(pid)], "a process of the app-server's tree survived destroy"


async def _sleepers(root: int) -> list[int]:
    def find() -> list[int]:
        return [m for m in group_members_all(root) if "sleep" in _cmdline(m)]

    await eventually(lambda: bool(find()), what="the sleep command started")
    return find()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def group_members_all(pgid: int) -> list[int]:
    """Descendants of the app-server (commands may run in their own process groups)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pgid]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            found.append(child)
            todo.append(child)
    return found


async def test_compact_yields_a_compaction_part(make_agent: Callable[..., HarnessAgent]) -> None:
    with ScriptedModelServer(Script.of("first")) as server:
        agent = make_agent(server)
        session = await agent.create_session()
        try:
            await agent.generate(session=session, prompt="hi")
            result = await session.compact().consume()
            compacted, parts = result.finish_reason, result.parts
        finally:
            await session.destroy()
        compaction_requests = [r for r in server.requests if r.is_model_call and not r.body.get("tools")]
    assert compacted == "stop"
    names = [p.tool_name for p in parts if isinstance(p, ToolCallPart | ToolResultPart)]
    assert names.count("compaction") == 2
    assert compaction_requests, "Codex sent no compaction request"


async def test_stop_and_resume_from_continue_the_thread(make_agent: Callable[..., HarnessAgent]) -> None:
    with ScriptedModelServer(Script.of("remembered", "second turn")) as server:
        agent = make_agent(server)
        session = await agent.create_session()
        await agent.generate(session=session, prompt="remember the word PAPAYA")
        state = await session.stop()
        await session.destroy()
        resumed = await agent.create_session(resume_from=state)
        try:
            again = await agent.generate(session=resumed, prompt="what was the word?")
        finally:
            await resumed.destroy()
        last = [r for r in server.requests if r.is_model_call][-1]
    assert again.finish_reason == "stop" and "second turn" in again.text
    assert "PAPAYA" in str(last.body)
