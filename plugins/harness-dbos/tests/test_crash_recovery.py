"""A worker OS process killed with SIGKILL mid-turn, and a second worker process
(``harness worker``) that recovers the turn: during a model request, during a host tool,
and while the turn waits for an approval (delivered from another process).

Only the model is scripted (a ScriptedModelServer on 127.0.0.1 in this process, which
counts the requests of every worker); host-tool executions are counted in a side-effect
file, one line per execution with the executing process's pid.
"""

from __future__ import annotations

import time

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


@pytest.mark.parametrize("cut", ["after-it-ran", "while-it-runs"])
def test_killed_after_a_builtin_bash_call_ran_never_runs_it_again(make_workers, workflow_id, tmp_path, cut):
    # The built-in harness's own bash is a step (harness_execute_builtin): replaying the
    # recorded model response replays its recorded result, or (cut while it ran) tells the
    # model it was not run again, instead of running the command a second time.
    after_it_ran = cut == "after-it-ran"
    command = f"echo bash-ran >> {tmp_path / 'effects.txt'}" + ("; echo printed" if after_it_ran else "; sleep 20")
    script = [ModelTurn("Running.", tool_calls=[ToolCallSpec("bash", {"command": command})]), "Done."]
    # after-it-ran: the second request (index 1) waits 30 s; the worker is killed meanwhile
    with ScriptedModelServer(script, faults=[Fault(at=1, delay=30)] if after_it_ran else []) as server:
        workers = make_workers(server.openai_base_url)
        assert workers.effects == tmp_path / "effects.txt"
        first = workers.start_turn(workflow_id, "run a command")
        if after_it_ran:
            wait_until(lambda: server.model_calls >= 2, "the model request after the bash call")
        else:
            wait_until(lambda: workers.effects_lines(), "the bash call's side effect")
        workers.kill(first)

        workers.worker()
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert workers.effects_lines() == ["bash-ran"]  # exactly once, by the killed worker
        if after_it_ran:
            assert "printed" in (server.last_tool_result() or "")  # the recorded result, replayed
            assert server.model_calls == 3  # request 1 was in flight and is sent again
            assert server.model_requests[2].messages == server.model_requests[1].messages
        else:
            assert "not run again" in (server.last_tool_result() or "")
            assert server.model_calls == 2


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_two_workers_recovering_the_same_turn_at_once_run_it_once(make_workers, workflow_id):
    # After a SIGKILL, two `harness worker` processes (same executor id) start together and
    # both recover the turn. The killed worker ran "one" and was cut during the second model
    # request; the turn finishes once and every tool's side effect happens once. (Whichever
    # worker launches last takes the turn over, see the next test: a tool the other one was
    # running then finishes there, once, and is reported to the model as not run again.)
    script = [ModelTurn("One.", tool_calls=[ToolCallSpec("record", {"text": "one"})]),
              ModelTurn("Two.", tool_calls=[ToolCallSpec("record", {"text": "two"})]),
              ModelTurn("Three.", tool_calls=[ToolCallSpec("record", {"text": "three"})]),
              "Done."]
    slow = {"APP_SLOW_TEXTS": "two,three", "APP_TOOL_SLEEP": "2"}
    with ScriptedModelServer(script, faults=[Fault(at=1, delay=30)]) as server:
        workers = make_workers(server.openai_base_url)
        first = workers.start_turn(workflow_id, "record three notes")
        wait_until(lambda: server.model_calls >= 2, "the second model request (delayed) to arrive")
        workers.kill(first)

        recovering = [workers.worker(**slow), workers.worker(**slow)]
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert result["text"] == "One.Two.Three.Done."
        _wait_for_both(workers, recovering)
        effects = workers.effects_lines()
        assert [line.split()[0] for line in effects] == ["one", "two", "three"]  # each once
        assert {line.split("pid=")[1] for line in effects[1:]} <= {str(p.pid) for p in recovering}
        _assert_one_finish(workers, workflow_id, tool_results=3)


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_a_worker_launched_while_another_process_runs_the_turn_takes_it_over_at_most_once(
        make_workers, workflow_id, tmp_path):
    # A worker that launches recovers every PENDING turn of its executor id, also one a live
    # process is running. DBOS hands the turn to a new execution and stops the old one at its
    # next recorded step; the tool the old one was running when it lost the turn finishes
    # there once, is not run again by the new owner (its start claim), and the model is told
    # so. The turn finishes once; every tool ran once. The new execution runs in whichever
    # process dequeues it first, usually the starter itself: there it runs on DBOS's loop, and
    # so did the first execution (start_turn hands turns to that loop); it used to run on the
    # starter's asyncio.run loop, and the new execution's model request then failed on the
    # shared model client's pooled connection ("... bound to a different event loop").
    gate = tmp_path / "gate"
    script = [ModelTurn("One.", tool_calls=[ToolCallSpec("record", {"text": "one"})]),
              ModelTurn("Two.", tool_calls=[ToolCallSpec("record", {"text": "two"})]),
              "Done."]
    with ScriptedModelServer(script) as server:
        workers = make_workers(server.openai_base_url)
        first = workers.start_turn(workflow_id, "record two notes", APP_GATED_TEXTS="one", APP_GATE=str(gate))
        wait_until(lambda: workers.effects_lines(), "the first tool (held open by the gate)")
        second = workers.worker()
        assert second.stderr is not None
        assert "harness worker: ready" in second.stderr.readline()  # launched: recovery has begun
        time.sleep(3)  # the turn is handed to a new execution meanwhile
        gate.touch()
        result = _final(workers, workflow_id)

        assert result["finish_reason"] == "stop"
        assert result["text"] == "One.Two.Done."
        _wait_for_both(workers, [first, second])
        effects = workers.effects_lines()
        assert [line.split()[0] for line in effects] == ["one", "two"]  # each once
        assert "not run again" in str(server.model_requests[1].messages)  # "one", cut from its record
        assert server.model_calls == 3
        _assert_one_finish(workers, workflow_id, tool_results=1, tool_errors=1)  # "one": interrupted


def _wait_for_both(workers, processes) -> None:
    """Give an execution that lost the turn time to reach its next step (and stop) too."""
    time.sleep(3)


def _assert_one_finish(workers, workflow_id: str, tool_results: int, tool_errors: int = 0) -> None:
    async def parts() -> list[dict]:
        with harness_dbos.DurableClient(workers.database_url) as client:
            return [part async for part in client.parts(workflow_id)]

    kinds = [p["type"] for p in anyio.run(parts)]
    assert kinds.count("finish") == 1 and kinds.count("start") == 1
    assert (kinds.count("tool-result"), kinds.count("tool-error")) == (tool_results, tool_errors)
