"""What a suspended Codex thread holds pending, read from Codex's own rollout file.

After ``suspend_turn`` the app-server that held the requests is gone; what Codex itself
recorded is the thread's rollout, ``<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<thread
id>.jsonl``: ``response_item`` lines whose payload is the model's call (``function_call
{call_id, name, arguments}`` for shell commands, dynamic and MCP tools,
``custom_tool_call {call_id, name, input}`` for ``apply_patch``) and, once answered, its
``function_call_output`` / ``custom_tool_call_output``. A continued turn reports these
calls (not the continuation state) from :meth:`~._resumed.ResumedTurn.pending_requests`,
and runs an approved shell command as the rollout has it.

Source: the rollout lines written by codex 0.171.0 (``RolloutItem::ResponseItem``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ._settings import NATIVE_PATCH, NATIVE_SHELL

__all__ = ["RolloutCall", "find_rollout", "open_calls", "shell_input"]

_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


@attrs.frozen
class RolloutCall:
    """A call of the rollout without an output: its id, Codex's tool name and raw arguments.

    ``arguments`` is the decoded JSON of a ``function_call`` (``None`` when it is not JSON)
    or the raw text of a ``custom_tool_call``.
    """

    call_id: str
    name: str
    arguments: Any


def find_rollout(codex_home: Path, thread_id: str) -> Path:
    """The rollout file of ``thread_id`` under ``codex_home`` (newest when several).

    Raises:
        FileNotFoundError: Codex wrote none (the caller fails closed).
    """
    matches = sorted((codex_home / "sessions").glob(f"**/rollout-*{thread_id}.jsonl"))
    if not matches:
        raise FileNotFoundError(f"codex: no rollout for thread {thread_id!r} under {codex_home / 'sessions'}")
    return max(matches, key=lambda path: path.stat().st_mtime)


def _decode(text: object) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def open_calls(path: Path) -> dict[str, RolloutCall]:
    """The calls in the rollout at ``path`` that have no output yet, by call id.

    Raises:
        OSError: the rollout cannot be read.
    """
    calls: dict[str, RolloutCall] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = _decode(line)
        payload = entry.get("payload") if isinstance(entry, Mapping) and entry.get("type") == "response_item" else None
        if not isinstance(payload, Mapping) or not isinstance(payload.get("call_id"), str):
            continue
        call_id = payload["call_id"]
        if payload.get("type") in _CALLS:
            name = str(payload.get("name", ""))
            if payload["type"] == "function_call":
                namespace = payload.get("namespace")
                name = f"{namespace}__{name}" if isinstance(namespace, str) and namespace else name
                arguments = _decode(payload.get("arguments"))
            else:
                arguments = payload.get("input")
            calls[call_id] = RolloutCall(call_id, name, arguments)
        elif payload.get("type") in _OUTPUTS:
            calls.pop(call_id, None)
    return calls


def shell_input(call: RolloutCall, cwd: Path) -> dict[str, Any] | None:
    """The harness input (``{"command", "cwd"}``) of an ``exec_command`` call, else ``None``.

    ``workdir`` is resolved against the thread's ``cwd`` as Codex resolves it.
    """
    if call.name != NATIVE_SHELL or not isinstance(call.arguments, Mapping):
        return None
    command = call.arguments.get("cmd")
    if not isinstance(command, str):
        return None
    workdir = call.arguments.get("workdir")
    return {"command": command, "cwd": str(cwd / workdir) if isinstance(workdir, str) and workdir else str(cwd)}


def is_patch(call: RolloutCall) -> bool:
    """True for an ``apply_patch`` call."""
    return call.name == NATIVE_PATCH
