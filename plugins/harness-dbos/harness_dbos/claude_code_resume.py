"""Resuming a Claude Code turn whose CLI died with its worker, from Claude Code's own
session transcript.

Claude Code keeps each session as JSON lines in
``<config dir>/projects/<escaped cwd>/<session id>.jsonl`` (the CLI's format; the adapter
``harness-claude-code`` reads and appends it the same way for ``continue_from``). The
durable turn records the Claude Code session id and workspace as soon as the CLI reports
them (:func:`runtime_session`). A recovering worker reads the transcript's open calls
(``tool_use`` blocks without a ``tool_result``) and builds the suspended-turn state the
adapter continues from (``create_session(continue_from=...)``, documented in
docs/claude-code.md):

* a host call with a recorded result (:mod:`harness_dbos.runtime_tool`) is answered with
  it: the adapter writes it to the transcript and the CLI carries on from it;
* a host call a crash interrupted is answered with :data:`~harness_dbos.INTERRUPTED`, one
  never started with :data:`NOT_STARTED` (neither runs);
* a call the turn was paused on (an approval, a client-side result) waits again, and the
  answer delivered to the workflow answers it;
* a built-in Claude Code ran or was about to run is left to Claude Code.

Plugins never import each other: this module reads the adapter's public ``settings``
(``config_dir``, ``home``, ``env``), the session's ``claude_session_id`` and ``cwd``
(documented attributes of the Claude Code adapter session) and the transcript.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, HarnessConfigurationError, HarnessSession, ToolOutput

from .tool_step import INTERRUPTED

__all__ = ["HOST_PREFIX", "NOT_STARTED", "ClaudeCodeResume"]

HOST_PREFIX = "mcp__harness__"
"""How Claude Code names host tools: the adapter serves them from its in-process MCP server
``harness`` (docs/claude-code.md, "Host tools")."""

NOT_STARTED = (
    "Error: the worker running this turn stopped before this tool call started; it was not run. "
    "Call it again if it is still needed."
)
"""The error result of a host call the transcript holds but no worker started."""


class ClaudeCodeResume:
    """The Claude Code resumer of a :class:`~harness_dbos.DurableAgent`.

    Args:
        agent: an agent on the ``claude-code`` harness.

    Raises:
        HarnessConfigurationError: the agent's adapter is not the Claude Code adapter.
    """

    harness_id = "claude-code"

    def __init__(self, agent: HarnessAgent) -> None:
        settings: Any = getattr(agent.adapter, "settings", None)
        if not all(hasattr(settings, name) for name in ("config_dir", "home", "env")):
            raise HarnessConfigurationError(
                "DurableAgent: the claude-code agent's adapter has no settings with config_dir, home and env "
                "(harness_claude_code.claude_code(...)); its transcripts cannot be found")
        self._config_dir: Path | None = settings.config_dir
        self._home: Path | None = settings.home
        self._env: Mapping[str, str] = settings.env
        self._host_prefix = HOST_PREFIX

    @property
    def config_dir(self) -> Path:
        """Where the CLI keeps its transcripts (the same rule as the adapter's: the
        ``env`` setting, ``config_dir``, ``$CLAUDE_CONFIG_DIR``, else ``<HOME>/.claude``)."""
        configured = self._env.get("CLAUDE_CONFIG_DIR") or (
            str(self._config_dir) if self._config_dir is not None else os.environ.get("CLAUDE_CONFIG_DIR"))
        if configured:
            return Path(configured).expanduser()
        home = self._env.get("HOME") or (str(self._home) if self._home is not None else None) \
            or os.environ.get("HOME") or str(Path.home())
        return Path(home) / ".claude"

    def runtime_session(self, session: HarnessSession) -> dict[str, Any] | None:
        """``{"claude_session_id", "cwd"}`` once the CLI reported its session id, else ``None``."""
        adapter_session = session.adapter_session
        claude_session_id = getattr(adapter_session, "claude_session_id", None)
        cwd = getattr(adapter_session, "cwd", None)
        if not isinstance(claude_session_id, str) or cwd is None:
            return None
        return {"claude_session_id": claude_session_id, "cwd": str(cwd)}

    def transcript(self, claude_session_id: str) -> Path | None:
        """The session's transcript file (the newest non-empty one), or ``None``."""
        projects = self.config_dir / "projects"
        found = [p for p in projects.glob(f"*/{claude_session_id}.jsonl") if p.stat().st_size > 0] \
            if projects.is_dir() else []
        return max(found, key=lambda p: p.stat().st_mtime) if found else None

    def open_calls(self, claude_session_id: str) -> dict[str, tuple[str, Any]]:
        """The main agent's calls in the transcript with no result: ``{id: (native name, input)}``."""
        path = self.transcript(claude_session_id)
        calls: dict[str, tuple[str, Any]] = {}
        for entry in _entries(path) if path is not None else []:
            if entry.get("isSidechain"):
                continue
            for block in _blocks(entry):
                if entry.get("type") == "assistant" and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    calls[block["id"]] = (str(block.get("name", "")), block.get("input"))
                elif entry.get("type") == "user" and block.get("type") == "tool_result":
                    calls.pop(str(block.get("tool_use_id")), None)
        return calls

    def holds_prompt(self, runtime: Mapping[str, Any], prompt: str) -> bool:
        """Whether the transcript's last user prompt (not a tool result) is ``prompt``."""
        path = self.transcript(runtime["claude_session_id"])
        last: str | None = None
        for entry in _entries(path) if path is not None else []:
            if entry.get("type") != "user" or entry.get("isSidechain"):
                continue
            content = entry.get("message", {}).get("content") if isinstance(entry.get("message"), dict) else None
            if isinstance(content, str):
                last = content
            elif isinstance(content, list) and not any(b.get("type") == "tool_result" for b in _blocks(entry)):
                last = "".join(str(b.get("text", "")) for b in _blocks(entry) if b.get("type") == "text")
        return last is not None and last.strip() == prompt.strip()

    def continue_state(self, *, session_id: str, runtime: Mapping[str, Any], pause: Mapping[str, Any] | None,
                       outcomes: Mapping[str, ToolOutput], started: set[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The suspended-turn state to continue the crashed turn from, and the tool results
        to answer it with; ``None`` when the transcript holds no open call to continue from.

        Args:
            session_id: the harness session id.
            runtime: what :meth:`runtime_session` recorded.
            pause: the status of the pause the turn was in (``pending_approvals``,
                ``pending_tool_calls``), or ``None``.
            outcomes: recorded host-tool results by call id.
            started: call ids whose execution was claimed.
        """
        open_calls = self.open_calls(runtime["claude_session_id"])
        paused_approvals = {a["tool_call_id"]: a for a in (pause or {}).get("pending_approvals", {}).values()}
        paused_results = dict((pause or {}).get("pending_tool_calls", {}))
        approvals: dict[str, Any] = {}
        pending_results: dict[str, Any] = {}
        adapter_calls: dict[str, Any] = {}
        answers: list[dict[str, Any]] = []
        for call_id, (native, native_input) in open_calls.items():
            host = native.startswith(self._host_prefix)
            tool_name = native[len(self._host_prefix):] if host else None
            if call_id in paused_approvals:
                approval = paused_approvals[call_id]
                approvals[approval["approval_id"]] = approval
                adapter_calls[call_id] = {"kind": "host" if host else "builtin", "native_name": native,
                                          "tool_name": tool_name, "input": native_input,
                                          "approval_id": None if host else approval["approval_id"], "asked": True}
            elif not host:
                continue  # a built-in Claude Code ran or was about to: Claude Code handles it on resume
            else:
                adapter_calls[call_id] = {"kind": "host", "native_name": native, "tool_name": tool_name,
                                          "input": native_input, "asked": True}
                pending_results[call_id] = paused_results.get(call_id) or {
                    "tool_call_id": call_id, "tool_name": tool_name, "input": native_input,
                    "native_tool_name": native, "provider_metadata": {}}
                if call_id in paused_results:
                    continue  # a client-side call: its result comes with the answers
                output = outcomes.get(call_id) or ToolOutput(INTERRUPTED if call_id in started else NOT_STARTED,
                                                             is_error=True)
                answers.append({"tool_call_id": call_id, "output": output, "is_error": output.is_error})
        if not approvals and not pending_results:
            return None
        adapter = {"version": 1, "kind": "claude-code/continue", "claude_session_id": runtime["claude_session_id"],
                   "cwd": runtime["cwd"], "calls": adapter_calls}
        state = {"version": 1, "kind": "suspended-turn", "harness_id": self.harness_id, "session_id": session_id,
                 "state": "awaiting-approval" if approvals else "awaiting-tool-result",
                 "pending_approvals": approvals, "pending_tool_results": pending_results, "decided": {},
                 "adapter": adapter}
        return state, answers

    def resume_state(self, *, session_id: str, runtime: Mapping[str, Any]) -> dict[str, Any]:
        """The stopped-session state resuming the Claude Code session (no open call)."""
        adapter = {"version": 1, "kind": "claude-code/resume", "claude_session_id": runtime["claude_session_id"],
                   "cwd": runtime["cwd"]}
        return {"version": 1, "kind": "stopped-session", "harness_id": self.harness_id, "session_id": session_id,
                "adapter": adapter}


def _entries(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return entries
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line the crash cut short
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _blocks(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
