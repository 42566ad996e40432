"""The names and the answers message shared by the turn workflow and its clients."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = ["ANSWERS_TOPIC", "STATUS_EVENT", "answers_message"]

ANSWERS_TOPIC: Final = "harness.answers"
"""The DBOS message topic a paused turn receives its answers on."""
STATUS_EVENT: Final = "harness.status"
"""The DBOS event holding a turn's status (JSON)."""


def answers_message(approval_responses: Sequence[Mapping[str, Any]] = (),
                    tool_results: Sequence[Mapping[str, Any]] = ()) -> tuple[dict[str, Any], str]:
    """The answers message for a paused turn and its default idempotency key (the SHA-256
    of its canonical JSON: the same answers sent twice are delivered once).

    Raises:
        ValueError: no answers, or answers that are not JSON.
    """
    if not approval_responses and not tool_results:
        raise ValueError("answer() needs approval_responses or tool_results")
    message = {"approval_responses": [dict(r) for r in approval_responses],
               "tool_results": [dict(r) for r in tool_results]}
    text = json.dumps(message, sort_keys=True, separators=(",", ":"))
    return message, hashlib.sha256(text.encode("utf-8")).hexdigest()
