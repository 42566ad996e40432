"""What Claude Code itself holds pending, for :meth:`~._turn.ClaudeCodeTurn.pending_requests`.

Two sources, both the runtime's own, never the continuation state:

* **a live CLI**: the request the CLI sent, as it sent it: the ``can_use_tool`` permission
  callback's tool name and input, or the in-process MCP server's ``tools/call`` arguments
  (:func:`live_request`, recorded by the turn when the request arrives);
* **a continued turn** (the CLI that asked is gone): Claude Code's session transcript,
  ``<config dir>/projects/<cwd>/<session id>.jsonl``, whose last assistant entries hold the
  ``tool_use`` blocks that have no ``tool_result`` yet (:func:`transcript_calls`). These are
  the calls the resumed CLI carries on from.

Source: the transcript layout is Claude Code's (see :mod:`~._transcript`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container
from pathlib import Path
from typing import Any, Literal

import attrs

from harness_core import PendingRequest, ToolCall

from ._identity import identify_tool

__all__ = ["RuntimePending", "TranscriptCall", "live_request", "transcript_calls"]


@attrs.frozen
class TranscriptCall:
    """A ``tool_use`` block of the transcript without a ``tool_result``: id, native name, input."""

    tool_use_id: str
    native_name: str
    input: Any


def live_request(kind: Literal["approval", "tool-result"], call_id: str, native_name: str, native_input: Any,
                 host_prefix: str, approval_id: str | None = None) -> PendingRequest:
    """A :class:`~harness_core.PendingRequest` for a request of the runtime.

    Args:
        kind: ``approval`` (a built-in the CLI asks about) or ``tool-result`` (a host call).
        call_id: the call id the host knows (the first id of a repeated call).
        native_name: the tool name as Claude Code sent it (``Bash``, ``mcp__harness__pick``).
        native_input: the input as Claude Code sent it.
        host_prefix: the in-process MCP server's tool prefix.
        approval_id: the approval id, for ``kind="approval"``.
    """
    identity = identify_tool(native_name, host_prefix)
    call = ToolCall(tool_call_id=call_id, tool_name=identity.tool_name, input=native_input,
                    provider_executed=kind == "approval", native_tool_name=identity.native_tool_name or native_name)
    return PendingRequest(kind=kind, call=call, approval_id=approval_id)


def _lines(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def transcript_calls(path: Path) -> dict[str, TranscriptCall]:
    """The main agent's calls in the transcript at ``path`` that have no result, by ``tool_use`` id.

    Raises:
        OSError: the transcript cannot be read (the caller fails closed).
    """
    calls: dict[str, TranscriptCall] = {}
    for entry in _lines(path):
        if entry.get("isSidechain"):
            continue
        if entry.get("type") == "assistant":
            for block in _blocks(entry):
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    calls[block["id"]] = TranscriptCall(block["id"], str(block.get("name", "")), block.get("input"))
        elif entry.get("type") == "user":
            for block in _blocks(entry):
                if block.get("type") == "tool_result":
                    calls.pop(str(block.get("tool_use_id")), None)
    return calls


class RuntimePending:
    """The requests one turn's runtime holds open (see the module docstring).

    Args:
        host_prefix: the in-process MCP server's tool prefix.
    """

    def __init__(self, host_prefix: str) -> None:
        self._host_prefix = host_prefix
        self._live: dict[str, PendingRequest] = {}
        self._restored: dict[str, tuple[Literal["approval", "tool-result"], str]] = {}
        self._transcript: Callable[[], Path] | None = None
        self._frozen = False

    def freeze(self) -> None:
        """The CLI exited: keep reporting what it held when it died (answers go nowhere now)."""
        self._frozen = True

    def add(self, key: str, request: PendingRequest) -> None:
        """The live CLI sent ``request`` (``key``: approval id or call id) and waits for it."""
        self._live[key] = request

    def discard(self, key: str) -> None:
        """The CLI's request ``key`` was answered or released."""
        if self._frozen:
            return
        self._live.pop(key, None)
        self._restored.pop(key, None)

    def restore(self, kind: Literal["approval", "tool-result"], key: str, tool_use_id: str) -> None:
        """A continued turn waits on ``key`` for the call ``tool_use_id`` of the transcript."""
        self._restored[key] = (kind, tool_use_id)

    def read_transcript_with(self, locate: Callable[[], Path]) -> None:
        """Where the session's transcript is, for restored calls."""
        self._transcript = locate

    def requests(self, waiting: Container[str]) -> list[PendingRequest]:
        """The live requests, then the restored keys in ``waiting`` as the transcript holds them.

        A restored call the transcript does not hold is left out (the core then refuses its
        answer). Raises ``OSError`` / ``RuntimeError`` when the transcript cannot be read.
        """
        requests = list(self._live.values())
        restored = [(key, kind, call_id) for key, (kind, call_id) in self._restored.items() if key in waiting]
        if not restored:
            return requests
        if self._transcript is None:
            raise RuntimeError("the Claude Code transcript of the continued turn is unknown")
        held = transcript_calls(self._transcript())
        for key, kind, call_id in restored:
            call = held.get(call_id)
            if call is None:
                continue
            approval_id = key if kind == "approval" else None
            requests.append(live_request(kind, call.tool_use_id, call.native_name, call.input, self._host_prefix,
                                         approval_id))
        return requests
