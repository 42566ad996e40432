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
        ValueError: no answers, answers that are not JSON, or an entry without its string
            id (``approval_id`` / ``tool_call_id``, camelCase too) or with a non-bool ``approved``.
        TypeError: not a list of mappings (the message names the entry's index).
    """
    if not approval_responses and not tool_results:
        raise ValueError("answer() needs approval_responses or tool_results")
    message = {"approval_responses": _entries(approval_responses, "approval_responses", "approval_id", "approvalId"),
               "tool_results": _entries(tool_results, "tool_results", "tool_call_id", "toolCallId")}
    text = json.dumps(message, sort_keys=True, separators=(",", ":"))
    return message, hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entries(value: object, where: str, *id_keys: str) -> list[dict[str, Any]]:
    """Check answers before they are sent (the turn would refuse them later, or dict() fail
    unclearly): a list of mappings, each with its non-empty string id."""
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise TypeError(f"{where} must be a list of mappings, got {type(value).__name__}")
    entries: list[dict[str, Any]] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise TypeError(f"{where}[{index}]: expected a mapping, got {type(entry).__name__}")
        found = next((entry[key] for key in id_keys if key in entry), None)
        if not isinstance(found, str) or not found:
            raise ValueError(f"{where}[{index}]: {id_keys[0]!r} must be a non-empty string, got {found!r}")
        if where == "approval_responses" and not isinstance(entry.get("approved"), bool):
            raise ValueError(f"{where}[{index}]: 'approved' must be true or false, got {entry.get('approved')!r}")
        entries.append(dict(entry))
    return entries
