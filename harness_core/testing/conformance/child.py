"""The child process of the cross-process conformance tests (``python -m harness_core.testing.conformance``)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from harness_core.agent.results import GenerateResult
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
        result: GenerateResult = await target.agent.continue_generate(
            session=session,
            tool_result_continuations=continuation.get("tool_result_continuations", ()),
            approval_responses=continuation.get("approval_responses", ()),
        )
        return {"parts": [p.to_json() for p in result.parts], "state": session.state.value, "pid": os.getpid(),
                "violations": list(session.contract_violations)}
    finally:
        await session.destroy()


def main() -> None:
    """Continue a suspended conformance turn: JSON payload on stdin, JSON result on stdout."""
    payload = json.loads(sys.stdin.read())
    print(json.dumps(anyio.run(_child, payload)))


if __name__ == "__main__":
    main()
