"""Worker process that starts one durable Codex turn and serves it: ``python
cc_starter.py WORKFLOW_ID PROMPT WORKSPACE`` (see starter.py)."""

from __future__ import annotations

import asyncio
import json
import sys

import codex_app
import harness_dbos


async def main(workflow_id: str, prompt: str, workspace: str) -> None:
    await codex_app.durable.start_turn(prompt, workflow_id=workflow_id, session_id="s1", workspace=workspace)
    print("started", flush=True)
    print(json.dumps(await codex_app.durable.result(workflow_id)), flush=True)


if __name__ == "__main__":
    harness_dbos.launch()
    try:
        asyncio.run(main(*sys.argv[1:4]))
    finally:
        harness_dbos.destroy()
