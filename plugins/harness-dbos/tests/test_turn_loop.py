"""Every durable turn of a process runs on DBOS's event loop (harness_dbos._loop), whatever
loop starts it: the agent's model client keeps pooled HTTP connections bound to the loop
that opened them, and a turn on another loop (a recovery DBOS runs on its own loop, the
next ``asyncio.run``'s turn) used to fail with "... bound to a different event loop".

The app runs in a subprocess (a fresh DBOS), against a scripted model server here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

HERE = Path(__file__).resolve().parent

_APP = textwrap.dedent("""
    import asyncio, json
    import harness_dbos, durable_app
    from harness_core import HarnessConfigurationError

    async def start(prompt, session_id):
        return await durable_app.durable.start_turn(prompt, session_id=session_id)

    try:
        asyncio.run(start("before launch", "s0"))
    except HarnessConfigurationError as exc:
        print(json.dumps({"before_launch": str(exc)}), flush=True)
    harness_dbos.launch()  # outside any loop: DBOS runs its workflows on its background loop thread
    try:
        for turn in range(2):  # two asyncio.run calls: two loops, one after the other
            async def main():
                workflow_id = await start(f"turn {turn}", f"s{turn + 1}")
                return await durable_app.durable.result(workflow_id)
            result = asyncio.run(main())
            print(json.dumps({"turn": turn, "finish_reason": result["finish_reason"], "text": result["text"]}),
                  flush=True)
    finally:
        harness_dbos.destroy()
""")


def test_turns_started_from_two_event_loops_share_the_model_client(tmp_path: Path) -> None:
    # each turn: a request with a tool call, the tool, a second request (the script answers
    # by the conversation's position, so both turns get the same answers)
    script = [ModelTurn("One.", tool_calls=[ToolCallSpec("record", {"text": "one"})]), "Done."]
    with ScriptedModelServer(script) as server:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
               "APP_MODEL_URL": server.openai_base_url, "APP_EFFECTS": str(tmp_path / "effects.txt"),
               "HARNESS_DBOS_DATABASE_URL": f"sqlite:///{tmp_path / 'system.sqlite'}"}
        done = subprocess.run([sys.executable, "-c", _APP], env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        before, first, second = (json.loads(line) for line in done.stdout.splitlines())

        assert "launch" in before["before_launch"]  # refused, not started on some loop
        assert (first["finish_reason"], first["text"]) == ("stop", "One.Done."), done.stderr
        # the second turn's request goes over the client's pooled connection, opened by the
        # first turn: on the loop of the first asyncio.run (closed by now) before the fix
        assert (second["finish_reason"], second["text"]) == ("stop", "One.Done."), done.stderr
        assert server.model_calls == 4
        assert [line.split()[0] for line in (tmp_path / "effects.txt").read_text().splitlines()] == ["one", "one"]
