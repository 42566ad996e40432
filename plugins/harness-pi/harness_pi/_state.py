"""The adapter's JSON state: a suspended turn (``continue_from``) and a stopped session (``resume_from``).

Both carry pi's session file itself (``session_jsonl``, pi's JSONL session format v3), so
another process, or another machine, continues without shared disk. They never carry an
API key, MCP ``env``/``headers`` or tool context. A suspended turn also carries the open
calls of the interrupted step with the answers the host gave so far.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

import pydantic

from harness_core import HarnessConfigurationError

__all__ = ["FORMAT", "Answer", "OpenCall", "ResumeState", "SuspendState", "parse_resume", "parse_suspend",
           "truncate_session"]

FORMAT: Final = "harness-pi/1"
"""The ``format`` field of the adapter's state."""


class Answer(pydantic.BaseModel):
    """The host's answer to one call: an approval decision or a host tool result."""

    kind: Literal["approval", "result"]
    approved: bool = True
    reason: str | None = None
    content: str = ""
    is_error: bool = False
    items: list[dict[str, Any]] | None = None


class OpenCall(pydantic.BaseModel):
    """A call of the interrupted step, as the host saw it."""

    kind: Literal["builtin", "host"]
    native_name: str
    tool_name: str
    input: Any = None
    approval_id: str | None = None
    asked: bool = False
    answer: Answer | None = None


class ResumeState(pydantic.BaseModel):
    """State of a stopped session (``stop()`` / ``resume_from``)."""

    format: Literal["harness-pi/1"] = FORMAT
    kind: Literal["stopped", "suspended"] = "stopped"
    cwd: str
    session_name: str
    session_jsonl: str


class SuspendState(ResumeState):
    """State of a suspended turn (``suspend_turn()`` / ``continue_from``)."""

    kind: Literal["stopped", "suspended"] = "suspended"
    calls: dict[str, OpenCall] = pydantic.Field(default_factory=dict)


def _unwrap(state: object) -> object:
    if isinstance(state, dict) and "adapter" in state and "format" not in state:
        return state["adapter"]
    return state


def parse_resume(state: object) -> ResumeState:
    """Read ``resume_from`` (or the ``adapter`` part of a core envelope).

    Raises:
        HarnessConfigurationError: not pi adapter state.
    """
    try:
        return ResumeState.model_validate(_unwrap(state))
    except pydantic.ValidationError as error:
        raise HarnessConfigurationError(f"pi: resume_from is not pi adapter state: {error.errors()[:2]}") from error


def parse_suspend(state: object) -> SuspendState:
    """Read ``continue_from`` (or the ``adapter`` part of a core envelope).

    Raises:
        HarnessConfigurationError: not a suspended pi turn.
    """
    try:
        parsed = SuspendState.model_validate(_unwrap(state))
    except pydantic.ValidationError as error:
        raise HarnessConfigurationError(f"pi: continue_from is not a suspended pi turn: {error.errors()[:2]}") from error
    if parsed.kind != "suspended":
        raise HarnessConfigurationError("pi: continue_from holds a stopped session; pass it as resume_from")
    return parsed


def _tool_call_ids(entry: dict[str, Any]) -> set[str]:
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
        return set()
    content = message.get("content")
    if not isinstance(content, list):
        return set()
    return {str(block.get("id")) for block in content if isinstance(block, dict) and block.get("type") == "toolCall"}


def truncate_session(jsonl: str, call_ids: set[str]) -> str:
    """pi's session with the interrupted step removed: the last assistant message calling any
    of ``call_ids`` and every entry after it.

    When no entry calls them (pi had not saved the step), the session is returned unchanged.
    """
    lines = jsonl.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        try:
            entry = json.loads(lines[index])
        except ValueError:
            continue
        if isinstance(entry, dict) and _tool_call_ids(entry) & call_ids:
            return "".join(line + "\n" for line in lines[:index])
    return jsonl
