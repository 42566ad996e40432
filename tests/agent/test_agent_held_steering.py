"""Steering accepted while a turn waits for answers: held by the core, kept in suspended
state, delivered when the turn continues; a refusal is an ``error`` part, never silent
(scripted adapter given a ``steer`` method)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import Capability, ErrorPart, define_harness_tool, supported
from harness_core.testing import CallHost, Say, ScriptedAdapter
from harness_core.testing.conformance import check_stream_shape
from harness_core.testing.scripted import ScriptedTurn

pytestmark = pytest.mark.anyio


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refuse: bool = False) -> tuple[Any, list[str]]:
    received: list[str] = []

    async def steer(self: ScriptedTurn, text: str) -> None:
        if refuse and received:
            raise RuntimeError("this turn cannot be steered")
        received.append(text)

    monkeypatch.setattr(ScriptedTurn, "steer", steer, raising=False)
    adapter = ScriptedAdapter([[[CallHost("record", {})], [Say("done")]]], workspace=tmp_path)
    adapter.capabilities[Capability.STEERING] = supported("test: ScriptedTurn.steer")
    record = define_harness_tool(name="record", description="r", input={"type": "object"},
                                 execute=lambda i, c: "ok")
    return adapter.agent(tools=[record], tool_approval={"record": "user-approval"}), received


async def test_a_steer_while_paused_is_held_until_the_turn_continues(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    agent, received = _setup(tmp_path, monkeypatch)
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="go")
        await session.steer_turn("use blue")
        assert received == []  # held: the runtime waits for the approval
        [request] = first.approval_requests
        rest = await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    assert received == ["use blue"] and rest.text == "done"


async def test_held_steering_travels_in_suspended_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent, received = _setup(tmp_path, monkeypatch)
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="go")
        await session.steer_turn("use blue")
        await session.steer_turn("and green")
        state = json.loads(json.dumps(await session.suspend_turn()))
    assert state["steering"] == ["use blue", "and green"] and received == []
    [request] = first.approval_requests
    async with await agent.create_session(continue_from=state) as resumed:
        rest = await agent.continue_generate(session=resumed, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(rest.parts)
    assert received == ["use blue", "and green"] and rest.text == "done"


async def test_a_held_steer_the_continued_turn_refuses_is_an_error_part(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    agent, received = _setup(tmp_path, monkeypatch, refuse=True)
    async with await agent.create_session() as session:
        first = await agent.generate(session=session, prompt="go")
        await session.steer_turn("one")
        await session.steer_turn("two")
        state = json.loads(json.dumps(await session.suspend_turn()))
    [request] = first.approval_requests
    async with await agent.create_session(continue_from=state) as resumed:
        rest = await agent.continue_generate(session=resumed, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    errors = [p for p in rest.parts if isinstance(p, ErrorPart)]
    assert [e.error_type for e in errors] == ["steering-undelivered"]
    assert "cannot be steered" in errors[0].error and received == ["one"]
    assert rest.finish_reason == "stop" and rest.text == "done"
    assert "was not delivered" in caplog.text


async def test_malformed_steering_in_state_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness_core import HarnessConfigurationError

    agent, _ = _setup(tmp_path, monkeypatch)
    async with await agent.create_session() as session:
        await agent.generate(session=session, prompt="go")
        state = json.loads(json.dumps(await session.suspend_turn()))
    with pytest.raises(HarnessConfigurationError, match="steering"):
        await agent.create_session(continue_from={**state, "steering": [""]})
