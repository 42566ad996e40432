"""Exactly-once continuation: with a continuation store, the same suspended state continues
once, whatever the process (two OS processes race for it)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ContinuationReplayError,
    ContinuationStore,
    HarnessConfigurationError,
    SqliteContinuationStore,
    TurnStateError,
    define_harness_tool,
)
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

pytestmark = pytest.mark.anyio

# The agent both the test and the child processes build (the child imports this text).
AGENT = textwrap.dedent('''
    import json, os
    from pathlib import Path
    from harness_core import SqliteContinuationStore, define_harness_tool
    from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

    def make_agent(db, log):
        def execute(input, ctx):
            with open(log, "a") as out:
                out.write(json.dumps({"pid": os.getpid(), "input": input}) + "\\n")
            return "paid"
        pay = define_harness_tool(name="pay", description="pay", input={"type": "object"}, execute=execute)
        adapter = ScriptedAdapter([[[CallHost("pay", {"amount": 10}, id="p1")], [EchoResults()]]])
        store = SqliteContinuationStore(db) if db else None
        return adapter.agent(tools=[pay], tool_approval={"pay": "user-approval"}, continuation_store=store)
''')

CHILD = AGENT + textwrap.dedent('''
    import sys, anyio
    from harness_core import ContinuationReplayError

    async def main():
        db, log, state_path, go = sys.argv[1:5]
        agent = make_agent(db, log)
        state = Path(state_path).read_text()
        while not Path(go).exists():   # start both racers at once
            await anyio.sleep(0.005)
        try:
            session = await agent.create_session(continue_from=state)
        except ContinuationReplayError as exc:
            print(json.dumps({"refused": str(exc)}))
            return
        done = await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": "approval-p1", "approved": True}])
        print(json.dumps({"finish": done.finish_reason}))

    anyio.run(main)
''')


def make_agent(db: Path | None, log: Path) -> Any:
    namespace: dict[str, Any] = {}
    exec(AGENT, namespace)  # the same definition the child processes use
    return namespace["make_agent"](str(db) if db else "", str(log))


async def suspended_state(log: Path) -> str:
    agent = make_agent(None, log)
    session = await agent.create_session(session_id="pay-1")
    first = await agent.generate(session=session, prompt="pay")
    assert first.finish_reason == "awaiting-approval"
    return json.dumps(await session.suspend_turn())


def payments(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_without_a_store_the_same_state_continues_twice(tmp_path: Path) -> None:
    """The replay hazard the store exists for (docs/agent.md)."""
    log = tmp_path / "payments.log"
    state = await suspended_state(log)
    agent = make_agent(None, log)
    for _ in range(2):
        session = await agent.create_session(continue_from=state)
        await agent.continue_generate(session=session, approval_responses=[
            {"approval_id": "approval-p1", "approved": True}])
    assert len(payments(log)) == 2


async def test_a_second_continue_is_refused_in_the_same_process(tmp_path: Path) -> None:
    log, db = tmp_path / "payments.log", tmp_path / "store" / "continuations.db"
    state = await suspended_state(log)
    agent = make_agent(db, log)
    session = await agent.create_session(continue_from=state)
    await agent.continue_generate(session=session, approval_responses=[{"approval_id": "approval-p1", "approved": True}])
    with pytest.raises(ContinuationReplayError, match="already continued"):
        await agent.create_session(continue_from=json.loads(state))  # as a mapping: the same claim
    assert issubclass(ContinuationReplayError, TurnStateError)
    assert len(payments(log)) == 1


def test_two_processes_racing_for_one_state_run_it_once(tmp_path: Path) -> None:
    import anyio

    log, db, go = tmp_path / "payments.log", tmp_path / "continuations.db", tmp_path / "go"
    state_path = tmp_path / "state.json"
    state_path.write_text(anyio.run(suspended_state, log))
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    racers = [subprocess.Popen([sys.executable, str(script), str(db), str(log), str(state_path), str(go)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    go.write_text("go")
    outcomes = []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err[-3000:]
        outcomes.append(json.loads(out.strip().splitlines()[-1]))
    assert sum("refused" in o for o in outcomes) == 1 and sum(o.get("finish") == "stop" for o in outcomes) == 1
    assert len(payments(log)) == 1


async def test_a_failing_store_refuses_and_a_bad_store_is_a_configuration_error(tmp_path: Path) -> None:
    class Broken:
        def claim(self, key: str, session_id: str) -> bool:
            raise OSError("disk full")

    assert isinstance(Broken(), ContinuationStore)
    log = tmp_path / "payments.log"
    state = await suspended_state(log)
    pay = define_harness_tool(name="pay", description="pay", input={"type": "object"}, execute=lambda i, c: "x")
    adapter = ScriptedAdapter([[[CallHost("pay", {}, id="p1")], [EchoResults()]]])
    agent = adapter.agent(tools=[pay], tool_approval={"pay": "user-approval"}, continuation_store=Broken())
    with pytest.raises(ContinuationReplayError, match="store failed"):
        await agent.create_session(continue_from=state)
    with pytest.raises(HarnessConfigurationError, match="claim"):
        adapter.agent(tools=[pay], continuation_store=object())
    with pytest.raises(HarnessConfigurationError, match="cannot be opened"):
        SqliteContinuationStore(Path("/proc/nope/x.db"))
    assert payments(log) == []
