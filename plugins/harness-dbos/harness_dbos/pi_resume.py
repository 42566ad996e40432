"""Resuming a pi turn whose process died with its worker, from pi's session file.

The pi adapter runs pi on ``<session temp dir>/sessions/session.jsonl`` (``--session``;
docs/pi.md), pi's JSONL session format: ``message`` entries whose assistant messages hold
``toolCall`` blocks ``{id, name, arguments}`` and whose ``toolResult`` messages answer them
(``toolCallId``). The durable turn records the session's temporary directory
(``temp_dir``, a public attribute of the adapter session) and workspace as soon as pi
runs; a crash leaves that directory behind. A recovering worker reads the session file's
open calls and builds the suspended-turn state the pi adapter continues from
(``create_session(continue_from=...)``): the adapter writes the session back without the
interrupted step, starts pi and asks it to go on; pi repeats the step's calls, which the
adapter answers from the answers given (a host call with a recorded result, or
:data:`~harness_dbos.INTERRUPTED` / :data:`~harness_dbos.claude_code_resume.NOT_STARTED`).

So a pi recovery always sends the interrupted step's model request again, and a built-in
call of that step that had run before the crash runs again when pi repeats it.

Plugins never import each other: this reads the adapter session's ``temp_dir`` and ``cwd``
and pi's session file only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, HarnessSession, ToolOutput

from .claude_code_resume import NOT_STARTED
from .tool_step import INTERRUPTED

__all__ = ["PiResume"]

_SESSION_FILE = Path("sessions", "session.jsonl")


class PiResume:
    """The pi resumer of a :class:`~harness_dbos.DurableAgent`.

    Args:
        agent: an agent on the ``pi`` harness.
    """

    harness_id = "pi"

    def __init__(self, agent: HarnessAgent) -> None:
        self._host_tools = frozenset(agent.config.host_tools)

    def runtime_session(self, session: HarnessSession) -> dict[str, Any] | None:
        """``{"temp_dir", "cwd"}`` once pi started (its session file exists), else ``None``."""
        adapter_session = session.adapter_session
        temp_dir = getattr(adapter_session, "temp_dir", None)
        cwd = getattr(adapter_session, "cwd", None)
        if temp_dir is None or cwd is None or getattr(adapter_session, "pi_pid", None) is None:
            return None
        return {"temp_dir": str(temp_dir), "cwd": str(cwd)}

    def _text(self, runtime: Mapping[str, Any]) -> str:
        try:
            return Path(runtime["temp_dir"], _SESSION_FILE).read_text(encoding="utf-8")
        except OSError:
            return ""

    def _messages(self, text: str) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line the crash cut short
            message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
            if isinstance(message, dict):
                messages.append(message)
        return messages

    def open_calls(self, text: str) -> dict[str, tuple[str, Any]]:
        """The session's calls no ``toolResult`` answers: ``{id: (pi's tool name, arguments)}``."""
        calls: dict[str, tuple[str, Any]] = {}
        for message in self._messages(text):
            if message.get("role") == "assistant" and isinstance(message.get("content"), list):
                for block in message["content"]:
                    if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                        calls[block["id"]] = (str(block.get("name", "")), block.get("arguments"))
            elif message.get("role") == "toolResult":
                calls.pop(str(message.get("toolCallId")), None)
        return calls

    def holds_prompt(self, runtime: Mapping[str, Any], prompt: str) -> bool:
        """Whether the session's last user message is ``prompt``."""
        last: str | None = None
        for message in self._messages(self._text(runtime)):
            if message.get("role") == "user":
                content = message.get("content")
                last = content if isinstance(content, str) else "".join(
                    str(c.get("text", "")) for c in content or () if isinstance(c, dict) and c.get("type") == "text")
        return last is not None and last.strip() == prompt.strip()

    def continue_state(self, *, session_id: str, runtime: Mapping[str, Any], pause: Mapping[str, Any] | None,
                       outcomes: Mapping[str, ToolOutput], started: set[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """See :meth:`harness_dbos.resumer.RuntimeResumer.continue_state`."""
        text = self._text(runtime)
        paused_approvals = {a["tool_call_id"]: a for a in (pause or {}).get("pending_approvals", {}).values()}
        paused_results = dict((pause or {}).get("pending_tool_calls", {}))
        approvals: dict[str, Any] = {}
        pending_results: dict[str, Any] = {}
        calls: dict[str, Any] = {}
        answers: list[dict[str, Any]] = []
        for call_id, (name, arguments) in self.open_calls(text).items():
            host = name in self._host_tools
            if call_id in paused_approvals:
                approval = paused_approvals[call_id]
                approvals[approval["approval_id"]] = approval
                calls[call_id] = {"kind": "host" if host else "builtin", "native_name": name,
                                  "tool_name": approval["tool_name"], "input": arguments,
                                  "approval_id": approval["approval_id"], "asked": True}
                continue
            if not host:
                continue  # a built-in pi ran or was about to: pi repeats it if the model does
            calls[call_id] = {"kind": "host", "native_name": name, "tool_name": name, "input": arguments,
                              "asked": True}
            pending_results[call_id] = paused_results.get(call_id) or {
                "tool_call_id": call_id, "tool_name": name, "input": arguments, "native_tool_name": None,
                "provider_metadata": {}}
            if call_id in paused_results:
                continue  # a client-side call: its result comes with the answers
            output = outcomes.get(call_id) or ToolOutput(INTERRUPTED if call_id in started else NOT_STARTED,
                                                         is_error=True)
            answers.append({"tool_call_id": call_id, "output": output, "is_error": output.is_error})
        if not approvals and not pending_results:
            return None
        adapter = {**self._adapter_state(runtime, text), "kind": "suspended", "calls": calls}
        state = {"version": 1, "kind": "suspended-turn", "harness_id": self.harness_id, "session_id": session_id,
                 "state": "awaiting-approval" if approvals else "awaiting-tool-result",
                 "pending_approvals": approvals, "pending_tool_results": pending_results, "decided": {},
                 "adapter": adapter}
        return state, answers

    def resume_state(self, *, session_id: str, runtime: Mapping[str, Any]) -> dict[str, Any]:
        """The stopped-session state resuming pi's session file."""
        return {"version": 1, "kind": "stopped-session", "harness_id": self.harness_id, "session_id": session_id,
                "adapter": self._adapter_state(runtime, self._text(runtime))}

    @staticmethod
    def _adapter_state(runtime: Mapping[str, Any], text: str) -> dict[str, Any]:
        return {"format": "harness-pi/1", "kind": "stopped", "cwd": runtime["cwd"],
                "session_name": _SESSION_FILE.name, "session_jsonl": text}
