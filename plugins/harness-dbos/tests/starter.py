"""Worker process that starts one durable turn and serves it: ``python starter.py
WORKFLOW_ID PROMPT WORKSPACE``. Prints ``started`` when the workflow exists and the result
JSON when the turn ends (the crash tests kill it before). The app module defining
``durable`` is ``$STARTER_APP`` (default ``durable_app``; ``cc_app``, ``codex_app``,
``pi_app`` for the runtime resume tests)."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys

import harness_dbos

app = importlib.import_module(os.environ.get("STARTER_APP", "durable_app"))


async def main(workflow_id: str, prompt: str, workspace: str) -> None:
    await app.durable.start_turn(prompt, workflow_id=workflow_id, session_id="s1", workspace=workspace)
    print("started", flush=True)
    print(json.dumps(await app.durable.result(workflow_id)), flush=True)


if __name__ == "__main__":
    harness_dbos.launch()
    try:
        asyncio.run(main(*sys.argv[1:4]))
    finally:
        harness_dbos.destroy()
