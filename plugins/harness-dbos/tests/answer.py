"""Client process: ``python answer.py WORKFLOW_ID APPROVAL_ID IDEMPOTENCY_KEY`` approves one
call of a paused turn (system database from ``HARNESS_DBOS_DATABASE_URL``), then waits for
the turn's result and prints it as JSON."""

from __future__ import annotations

import asyncio
import json
import sys

import harness_dbos


async def main(workflow_id: str, approval_id: str, key: str) -> None:
    with harness_dbos.DurableClient() as client:
        await client.answer(workflow_id, approval_responses=[{"approval_id": approval_id, "approved": True}],
                            idempotency_key=key or None)
        result = await client.result(workflow_id)
    print(json.dumps({"finish_reason": result["finish_reason"], "text": result["text"]}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
