"""Durable Codex turns: the real app-server dies with its worker (SIGKILL of the worker's
process group), a new ``harness worker`` process resumes the thread Codex kept under
``CODEX_HOME``, with the host tool's recorded result injected instead of run again.

Only the model is scripted (a Responses-wire ScriptedModelServer on 127.0.0.1 in this
process); the homes are throwaway folders every worker shares.
"""

from __future__ import annotations

import subprocess
import sys

import anyio
import harness_dbos
import pytest
from dbos_helpers import HERE, turn_result, wait_until
from process_tree import kill_tree

from harness_core.testing import Fault, ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = pytest.mark.requires_runtime("codex")


@pytest.fixture
def codex_workers(make_workers, tmp_path):
    class Helper:
        def start(self, server, workflow_id, prompt, **extra):
            workers = make_workers(server.openai_base_url)
            workers.env.update({"APP_HOME": str(tmp_path / "home"), **extra})
            workers.env["STARTER_APP"] = "codex_app"
            process = subprocess.Popen([sys.executable, str(HERE / "starter.py"), workflow_id, prompt,
                                        str(workers.workspace)], env=workers.env, cwd=workers.tmp, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            workers.processes.append(process)
            return workers, process

        def kill(self, process):
            kill_tree(process)

        def recover(self, workers, **extra):
            return workers.spawn(sys.executable, "-m", "harness_core.cli", "worker", "--app", "codex_app", **extra)

    return Helper()


def _status(database_url: str, workflow_id: str) -> dict | None:
    async def main() -> dict | None:
        try:
            with harness_dbos.DurableClient(database_url) as client:
                return await client.status(workflow_id)
        except Exception:
            return None

    return anyio.run(main)


def test_codex_killed_during_a_host_tool_never_runs_it_again(codex_workers, workflow_id):
    script = [ModelTurn("Recording.", tool_calls=[ToolCallSpec("record", {"text": "slow"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers, first = codex_workers.start(server, workflow_id, "record a note", APP_SLOW_TEXTS="slow",
                                             APP_TOOL_SLEEP="60")
        wait_until(lambda: workers.effects_lines(), "the host tool's side effect")
        codex_workers.kill(first)
        codex_workers.recover(workers)
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Done."
        assert len(workers.effects_lines()) == 1
        assert server.model_calls == 2
        assert "not run again" in (server.last_tool_result() or "")


def test_codex_killed_after_a_host_tool_ran_does_not_run_it_again(codex_workers, workflow_id):
    script = [ModelTurn("Recording.", tool_calls=[ToolCallSpec("record", {"text": "one"})]), "Done."]
    with ScriptedModelServer(script, faults=[Fault(at=1, delay=60)]) as server:
        workers, first = codex_workers.start(server, workflow_id, "record a note")
        wait_until(lambda: server.model_calls >= 2, "the model request after the host tool")
        codex_workers.kill(first)

        codex_workers.recover(workers)
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Done."
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={first.pid}" in effects[0]
        assert server.model_calls == 3
        assert server.last_tool_result() == "recorded one"


def test_codex_killed_while_waiting_for_approval_resumes_on_another_worker(codex_workers, workflow_id):
    script = [ModelTurn("Asking.", tool_calls=[ToolCallSpec("record", {"text": "approved"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers, first = codex_workers.start(server, workflow_id, "record after approval", APP_APPROVAL="user-approval")
        wait_until(lambda: (_status(workers.database_url, workflow_id) or {}).get("state") == "awaiting-approval",
                   "the approval wait")
        codex_workers.kill(first)
        (approval_id,) = _status(workers.database_url, workflow_id)["pending_approvals"]

        async def approve() -> None:
            with harness_dbos.DurableClient(workers.database_url) as client:
                await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}])

        anyio.run(approve)
        second = codex_workers.recover(workers, APP_APPROVAL="user-approval")
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Asking.Done."
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={second.pid}" in effects[0]
        assert server.model_calls == 2
        assert server.last_tool_result() == "recorded approved"
