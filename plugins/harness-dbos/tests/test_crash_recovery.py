"""A worker OS process killed with SIGKILL mid-turn, and a second worker process
(``harness worker``) that recovers the turn: during a model request, during a host tool,
and while the turn waits for an approval (delivered from another process).

Only the model is scripted (a ScriptedModelServer on 127.0.0.1 in this process, which
counts the requests of every worker); host-tool executions are counted in a side-effect
file, one line per execution with the executing process's pid.
"""

from __future__ import annotations

import anyio
import harness_dbos
import pytest
from dbos_helpers import turn_result, wait_until

from harness_core.testing import Fault, ModelTurn, Script, ScriptedModelServer, ToolCallSpec


def _final(workers, workflow_id: str) -> dict:
    return turn_result(workers.database_url, workflow_id)



def test_killed_during_a_model_request_recovers_without_resending_recorded_requests(make_workers, workflow_id):
    script = Script(turns=(
        ModelTurn("First.", tool_calls=[ToolCallSpec("record", {"text": "one"})]),
        ModelTurn("Second.", tool_calls=[ToolCallSpec("record", {"text": "two"})]),
        "Done.",
    ))
    # The second request (index 1) is answered after 30 s: the worker is killed while it waits.
    with ScriptedModelServer(script, faults=[Fault(at=1, delay=30)]) as server:
        workers = make_workers(server.openai_base_url)
        first = workers.start_turn(workflow_id, "record two notes")
        wait_until(lambda: server.model_calls >= 2, "the second model request (delayed) to arrive")
        assert [line.split()[0] for line in workers.effects_lines()] == ["one"]
        workers.kill(first)

        workers.worker()
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert result["text"].endswith("Done.")
        effects = workers.effects_lines()
        assert [line.split()[0] for line in effects] == ["one", "two"]  # "one" was not run again
        assert f"pid={first.pid}" in effects[0] and f"pid={first.pid}" not in effects[1]
        # Request 0 was recorded and is not re-sent; request 1 was in flight (unrecorded)
        # and is sent again, once, by the recovering worker (the script answers by the
        # conversation's position): 4 requests in all, not 5.
        assert server.model_calls == 4
        assert server.model_requests[2].messages == server.model_requests[1].messages


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_killed_during_a_host_tool_never_runs_it_again(make_workers, workflow_id):
    script = [ModelTurn("Recording.", tool_calls=[ToolCallSpec("record", {"text": "slow"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers = make_workers(server.openai_base_url)
        first = workers.start_turn(workflow_id, "record a note", APP_SLOW_TEXTS="slow", APP_TOOL_SLEEP="60")
        wait_until(lambda: workers.effects_lines(), "the host tool's side effect")
        workers.kill(first)

        workers.worker()
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert len(workers.effects_lines()) == 1  # exactly once, by the killed worker
        assert server.model_calls == 2  # the first request was replayed from the record
        assert "not run again" in (server.last_tool_result() or "")


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_killed_while_waiting_for_approval_continues_on_another_worker(make_workers, workflow_id):
    script = [ModelTurn("Asking.", tool_calls=[ToolCallSpec("record", {"text": "approved"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers = make_workers(server.openai_base_url)
        first = workers.start_turn(workflow_id, "record after approval", APP_APPROVAL="user-approval")

        async def status() -> dict | None:
            try:
                with harness_dbos.DurableClient(workers.database_url) as client:
                    return await client.status(workflow_id)
            except Exception:  # the worker has not created the system database yet
                return None

        wait_until(lambda: (anyio.run(status) or {}).get("state") == "awaiting-approval", "the approval wait")
        workers.kill(first)
        paused = anyio.run(status)
        (approval_id,) = paused["pending_approvals"]
        assert paused["pending_approvals"][approval_id]["input"] == {"text": "approved"}

        # No worker is alive: the approval goes to the database from this (client) process.
        async def approve() -> None:
            with harness_dbos.DurableClient(workers.database_url) as client:
                await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}])

        anyio.run(approve)
        assert workers.effects_lines() == []

        second = workers.worker(APP_APPROVAL="user-approval")
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert result["text"] == "Asking.Done."  # both slices: before the pause, after it
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={second.pid}" in effects[0]
        assert server.model_calls == 2
        assert server.last_tool_result() == "recorded approved"


def test_a_model_error_is_recorded_and_ends_the_turn(make_workers, workflow_id):
    # The built-in harness's ModelError does not unpickle by itself; the step records it
    # as a Failure and the turn ends with an error part naming it.
    with ScriptedModelServer(["never"], faults=[Fault(at=0, status=400, message="bad request here")]) as server:
        workers = make_workers(server.openai_base_url)
        workers.start_turn(workflow_id, "fail")
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "error"
        assert server.model_calls == 1

        async def parts() -> list[dict]:
            with harness_dbos.DurableClient(workers.database_url) as client:
                return [part async for part in client.parts(workflow_id)]

        (error,) = [part for part in anyio.run(parts) if part["type"] == "error"]
        assert "bad request here" in error["error"]
