"""Durable Claude Code turns: the real CLI dies with its worker (SIGKILL of the worker's
process group), a new ``harness worker`` process resumes the turn from Claude Code's own
transcript, with the host tool's recorded result replayed instead of run again.

Only the model is scripted (an Anthropic-wire ScriptedModelServer on 127.0.0.1 in this
process, counting every worker's requests); the CLI's ``HOME`` / ``CLAUDE_CONFIG_DIR``
are throwaway folders every worker shares. Host-tool executions are counted in a
side-effect file, one line per execution with the executing process's pid.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import harness_dbos
import pytest
from dbos_helpers import HERE, TIMEOUT, turn_result, wait_until
from process_tree import kill_tree

from harness_core.testing import (
    Fault,
    ModelTurn,
    ScriptedModelServer,
    ToolCallSpec,
    make_isolated_home,
)

pytestmark = pytest.mark.requires_runtime("claude-code")

RECORD = "mcp__harness__record"


@pytest.fixture
def cc(make_workers, tmp_path):
    """``start(server, workflow_id, prompt, **env)`` -> (workers, starter process);
    ``recover(workers, **env)`` -> a ``harness worker`` process on the Claude Code app."""
    home = make_isolated_home(tmp_path / "home")

    def env(server: ScriptedModelServer, extra: dict[str, str]) -> dict[str, str]:
        return {"APP_MODEL_URL": server.base_url, "APP_HOME": str(home.path),
                "APP_CONFIG_DIR": home["CLAUDE_CONFIG_DIR"], **extra}

    class Helper:
        def __init__(self):
            self.home = home

        def start(self, server, workflow_id, prompt, **extra):
            workers = make_workers(server.base_url)
            workers.env.update(env(server, extra))
            workers.env["STARTER_APP"] = "cc_app"
            process = subprocess.Popen([sys.executable, str(HERE / "starter.py"), workflow_id, prompt,
                                        str(workers.workspace)], env=workers.env, cwd=workers.tmp, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            workers.processes.append(process)
            return workers, process

        def kill(self, process):
            """SIGKILL the worker and everything it started (the CLI dies with it)."""
            kill_tree(process)

        def recover(self, workers, **extra):
            return workers.spawn(sys.executable, "-m", "harness_core.cli", "worker", "--app", "cc_app", **extra)

    return Helper()


def _parts(database_url: str, workflow_id: str) -> list[dict]:
    async def main() -> list[dict]:
        with harness_dbos.DurableClient(database_url) as client:
            with anyio.fail_after(TIMEOUT):
                return [part async for part in client.parts(workflow_id)]

    return anyio.run(main)


def _status(database_url: str, workflow_id: str) -> dict | None:
    async def main() -> dict | None:
        try:
            with harness_dbos.DurableClient(database_url) as client:
                return await client.status(workflow_id)
        except Exception:  # the system database is not created yet
            return None

    return anyio.run(main)


def _transcript(home) -> Path:
    (path,) = Path(home["CLAUDE_CONFIG_DIR"]).glob("projects/*/*.jsonl")
    return path


def _forget_results(path: Path) -> None:
    """Drop the transcript's tool-result entries: the state of a CLI killed before it wrote
    them (it writes its transcript a few hundred milliseconds late)."""
    kept = [line for line in path.read_text().splitlines() if '"tool_result"' not in line]
    path.write_text("\n".join(kept) + "\n")


@pytest.mark.parametrize("written", [True, False], ids=["result-in-transcript", "result-not-yet-in-transcript"])
def test_killed_after_a_host_tool_ran_resumes_the_transcript_without_running_it_again(cc, workflow_id, written):
    script = [ModelTurn("Recording.", tool_calls=[ToolCallSpec(RECORD, {"text": "one"})]), "Done."]
    # The request after the tool result (index 1) is answered after 60 s: the worker dies while it waits.
    with ScriptedModelServer(script, faults=[Fault(at=1, delay=60)]) as server:
        workers, first = cc.start(server, workflow_id, "record a note")
        wait_until(lambda: server.model_calls >= 2, "the model request after the host tool")
        assert [line.split()[0] for line in workers.effects_lines()] == ["one"]
        wait_until(lambda: '"tool_result"' in _transcript(cc.home).read_text(), "the CLI's transcript")
        cc.kill(first)
        if not written:
            _forget_results(_transcript(cc.home))

        second = cc.recover(workers)
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Done."
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={first.pid}" in effects[0]  # not run again by the second worker
        assert second.poll() is None
        # The resumed CLI sent the interrupted request again (the only lost work), with the
        # recorded result once, from its transcript (written there by the recovery when the
        # CLI had not); the first request was not repeated.
        assert server.model_calls == 3
        last = server.model_requests[-1]
        results = [r.text for m in last.messages for r in m.tool_results]
        assert results == ["recorded one"]
        # With the result in its transcript, the CLI resumes as after any crash: its own
        # placeholder answer, then the recovery's prompt (Claude Code's resume note). Without
        # it, the recovery writes the recorded result and the CLI continues the turn itself.
        assistant = [m.text for m in last.messages if m.role == "assistant"]
        assert assistant == (["Recording.", "No response requested."] if written else ["Recording."])
        texts = [m.text for m in last.messages if m.role == "user"]
        assert any("Continue from where you left off." in text for text in texts), texts
        assert result["session_state"]["harness_id"] == "claude-code"
        # The stream holds the crashed slice's parts, then the recovered slice's (the next
        # indices: a reader sees each once, in order, to the end).
        parts = _parts(workers.database_url, workflow_id)
        types = [part["type"] for part in parts]
        assert types[-1] == "finish" and "tool-call" in types
        after_call = "".join(p.get("text", "") for p in parts[types.index("tool-call"):] if p["type"] == "text-delta")
        assert after_call.endswith("Done.")


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_killed_while_waiting_for_approval_resumes_on_another_worker(cc, workflow_id):
    script = [ModelTurn("Asking.", tool_calls=[ToolCallSpec(RECORD, {"text": "approved"})]), "Done."]
    with ScriptedModelServer(script) as server:
        # With a state_secret: the state the recovery builds is signed like the agent's own.
        workers, first = cc.start(server, workflow_id, "record after approval", APP_APPROVAL="user-approval",
                                  APP_STATE_SECRET="a-secret-of-sixteen-bytes-or-more")
        wait_until(lambda: (_status(workers.database_url, workflow_id) or {}).get("state") == "awaiting-approval",
                   "the approval wait")
        cc.kill(first)
        paused = _status(workers.database_url, workflow_id)
        (approval_id,) = paused["pending_approvals"]
        assert paused["pending_approvals"][approval_id]["input"] == {"text": "approved"}

        async def approve() -> None:  # no worker is alive: the approval waits in the database
            with harness_dbos.DurableClient(workers.database_url) as client:
                await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}])

        anyio.run(approve)
        assert workers.effects_lines() == []

        second = cc.recover(workers, APP_APPROVAL="user-approval")
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Asking.Done."
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={second.pid}" in effects[0]
        # The approved result was written to the transcript; the resumed CLI continued from
        # it with one request (the request that asked for the tool was not sent again).
        assert server.model_calls == 2
        assert server.last_tool_result() == "recorded approved"
        parts = _parts(workers.database_url, workflow_id)
        types = [part["type"] for part in parts]
        assert types.count("tool-approval-request") == 1 and types.count("tool-result") == 1
        assert types.index("tool-approval-request") < types.index("tool-result")
        assert types[-1] == "finish"


def test_killed_during_a_host_tool_never_runs_it_again(cc, workflow_id):
    script = [ModelTurn("Recording.", tool_calls=[ToolCallSpec(RECORD, {"text": "slow"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers, first = cc.start(server, workflow_id, "record a note", APP_SLOW_TEXTS="slow", APP_TOOL_SLEEP="60")
        wait_until(lambda: workers.effects_lines(), "the host tool's side effect")
        cc.kill(first)

        cc.recover(workers)
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Done."
        assert len(workers.effects_lines()) == 1  # exactly once, by the killed worker
        # The interrupted call was answered in the transcript with the error saying so; the
        # resumed CLI sent the interrupted turn's next request with it.
        assert server.model_calls == 2
        assert "not run again" in (server.last_tool_result() or "")


def test_killed_while_a_builtin_waits_for_approval_reruns_the_interrupted_request(cc, workflow_id, tmp_path):
    # Only Claude Code can run its built-ins: after the crash, the approved Write cannot be
    # written into the transcript as a result, so the resumed CLI sends the interrupted
    # request again and its repeat of the call (same id and input) runs without asking.
    target = (tmp_path / "workspace").resolve() / "hello.txt"  # the workers' workspace
    script = [ModelTurn("Writing.", tool_calls=[ToolCallSpec("Write", {"file_path": str(target), "content": "hi\n"})]),
              "Done."]
    with ScriptedModelServer(script) as server:
        workers, first = cc.start(server, workflow_id, "write hello.txt", APP_PERMISSION="allow-reads")
        wait_until(lambda: (_status(workers.database_url, workflow_id) or {}).get("state") == "awaiting-approval",
                   "the approval wait")
        cc.kill(first)
        ((approval_id, pending),) = _status(workers.database_url, workflow_id)["pending_approvals"].items()
        assert pending["kind"] == "builtin" and pending["tool_name"] == "write"

        async def approve() -> None:
            with harness_dbos.DurableClient(workers.database_url) as client:
                await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}])

        anyio.run(approve)
        assert not target.exists()
        cc.recover(workers, APP_PERMISSION="allow-reads")
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert target.read_text() == "hi\n"
        assert server.model_calls == 3  # the request that asked for the Write was sent again
        assert result["text"].endswith("Done.")


def test_without_a_crash_an_approval_continues_the_live_cli(cc, workflow_id):
    # The paused CLI stays alive in its worker between two slices: the answer reaches it
    # directly (lossless, no resume, no repeated request).
    script = [ModelTurn("Asking.", tool_calls=[ToolCallSpec(RECORD, {"text": "live"})]), "Done."]
    with ScriptedModelServer(script) as server:
        workers, first = cc.start(server, workflow_id, "record after approval", APP_APPROVAL="user-approval")
        wait_until(lambda: (_status(workers.database_url, workflow_id) or {}).get("state") == "awaiting-approval",
                   "the approval wait")
        (approval_id,) = _status(workers.database_url, workflow_id)["pending_approvals"]

        async def approve() -> None:
            with harness_dbos.DurableClient(workers.database_url) as client:
                await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}])

        anyio.run(approve)
        result = turn_result(workers.database_url, workflow_id)

        assert result["finish_reason"] == "stop", result
        assert result["text"] == "Asking.Done."
        effects = workers.effects_lines()
        assert len(effects) == 1 and f"pid={first.pid}" in effects[0]
        assert server.model_calls == 2
        texts = [m.text for m in server.model_requests[-1].messages if m.role == "user"]
        assert not any("Continue from where you left off." in text for text in texts)
