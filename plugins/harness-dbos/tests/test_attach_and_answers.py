"""Other processes reaching a running turn: a client attaches to its parts from an offset
(``harness sessions show --follow`` in its own process); two client processes answer the
same approval at once and the approved tool runs exactly once."""

from __future__ import annotations

import json
import sys

import anyio
import harness_dbos
import pytest
from dbos_helpers import HERE, TIMEOUT, wait_until

from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec


def _parts(database_url: str, workflow_id: str, offset: int = 0) -> list[dict]:
    async def main() -> list[dict]:
        with harness_dbos.DurableClient(database_url) as client:
            with anyio.fail_after(TIMEOUT):
                await client.result(workflow_id)
                return [part async for part in client.parts(workflow_id, offset=offset)]

    return anyio.run(main)


def _status(database_url: str, workflow_id: str) -> dict | None:
    async def main() -> dict | None:
        try:
            with harness_dbos.DurableClient(database_url) as client:
                return await client.status(workflow_id)
        except Exception:  # the system database is not created yet
            return None

    return anyio.run(main)


def test_a_client_process_attaches_to_a_running_turn_from_an_offset(make_workers, workflow_id):
    calls = [ToolCallSpec("record", {"text": text}) for text in ("a", "b", "c")]
    script = [ModelTurn("One.", tool_calls=calls[:1]), ModelTurn("Two.", tool_calls=calls[1:2]),
              ModelTurn("Three.", tool_calls=calls[2:]), "Done."]
    with ScriptedModelServer(script) as server:
        workers = make_workers(server.openai_base_url)
        workers.start_turn(workflow_id, "record three notes", APP_SLOW_TEXTS="a,b,c", APP_TOOL_SLEEP="3")
        wait_until(lambda: len(workers.effects_lines()) >= 1, "the first host tool")
        offset = 5
        reader = workers.spawn(sys.executable, "-m", "harness_core.cli", "sessions", "show", workflow_id,
                               "--offset", str(offset), "--follow")
        attached_while_running = len(workers.effects_lines()) < 3
        out, err = reader.communicate(timeout=TIMEOUT)
        assert reader.returncode == 0, err

        lines = [json.loads(line) for line in out.splitlines()]
        everything = _parts(workers.database_url, workflow_id)
        assert attached_while_running
        assert "status" in lines[0]
        assert lines[1:] == everything[offset:]
        assert everything[0]["type"] == "start" and everything[-1]["type"] == "finish"
        assert [p["type"] for p in everything].count("tool-result") == 3
        assert _parts(workers.database_url, workflow_id, offset=len(everything) - 1) == everything[-1:]

        listing = workers.spawn(sys.executable, "-m", "harness_core.cli", "sessions", "list")
        out, err = listing.communicate(timeout=TIMEOUT)
        assert listing.returncode == 0, err
        assert f"{workflow_id}\tSUCCESS\ts1" in out.splitlines()


@pytest.mark.parametrize("same_key", [True, False], ids=["same-idempotency-key", "different-keys"])
def test_two_processes_answering_the_same_approval_run_the_tool_once(make_workers, workflow_id, same_key):
    script = [ModelTurn("Asking.", tool_calls=[ToolCallSpec("record", {"text": "once"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers = make_workers(server.openai_base_url)
        workers.start_turn(workflow_id, "record once", APP_APPROVAL="user-approval")
        wait_until(lambda: (_status(workers.database_url, workflow_id) or {}).get("state") == "awaiting-approval",
                   "the approval wait")
        (approval_id,) = _status(workers.database_url, workflow_id)["pending_approvals"]

        answerers = [
            workers.spawn(sys.executable, str(HERE / "answer.py"), workflow_id, approval_id,
                          "k" if same_key else f"k{n}")
            for n in range(2)
        ]
        outputs = [process.communicate(timeout=TIMEOUT) for process in answerers]

        assert all(process.returncode == 0 for process in answerers), [err for _, err in outputs]
        results = [json.loads(out.splitlines()[-1]) for out, _ in outputs]
        assert results[0] == results[1] == {"finish_reason": "stop", "text": "Asking.Done."}
        assert len(workers.effects_lines()) == 1
        assert server.model_calls == 2
