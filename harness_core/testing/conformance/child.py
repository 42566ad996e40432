"""The child process of the cross-process conformance tests (``python -m harness_core.testing.conformance``)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from harness_core.adapter import PendingRequestsTurn
from harness_core.agent.results import GenerateResult
from harness_core.errors import TurnStateError
from harness_core.testing.conformance.fixtures import (
    agent_kwargs_from_spec,
    load_factory,
)

__all__ = ["main"]


async def _child(payload: Mapping[str, Any]) -> dict[str, Any]:
    workspace = Path(payload["workspace"])
    factory = load_factory(payload["factory"])
    target = factory(payload["env"], workspace, agent_kwargs_from_spec(payload["spec"], workspace))
    session = await target.agent.create_session(continue_from=payload["state"], **dict(target.session_kwargs))
    try:
        continuation = payload["continuation"]
        turn = session.control.turn
        capable = turn is not None and isinstance(turn.adapter_turn, PendingRequestsTurn)
        if payload.get("only_if_pending_requests") and not capable:  # a forged state: never continue it unchecked
            return {"parts": [], "state": session.state.value, "pid": os.getpid(), "pending_requests": False}
        try:
            result: GenerateResult = await target.agent.continue_generate(
                session=session,
                tool_result_continuations=continuation.get("tool_result_continuations", ()),
                approval_responses=continuation.get("approval_responses", ()),
            )
        except TurnStateError as exc:
            # A continuation refused before anything ran (the approval-match check).
            return {"refused": str(exc), "pending_requests": capable, "parts": [], "state": session.state.value,
                    "pid": os.getpid(), "violations": list(session.contract_violations)}
        return {"parts": [p.to_json() for p in result.parts], "state": session.state.value, "pid": os.getpid(),
                "pending_requests": capable,
                "violations": list(session.contract_violations)}
    finally:
        await session.destroy()


def main() -> None:
    """Continue a suspended conformance turn: JSON payload on stdin, JSON result on stdout."""
    payload = json.loads(sys.stdin.read())
    print(json.dumps(anyio.run(_child, payload)))


if __name__ == "__main__":
    main()
