"""Resuming a Codex turn whose app-server died with its worker, from the thread Codex keeps.

Codex persists each thread as a rollout file,
``<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`` (codex 0.171.0): its
``response_item`` lines hold the model's calls (``function_call {call_id, name,
arguments}``, ``custom_tool_call``) and, once answered, their outputs. The durable turn
records the thread id and homes as soon as the adapter reports them; a recovering worker
reads the rollout's open calls and builds the suspended-turn state the Codex adapter
continues from (``create_session(continue_from=...)``, docs/codex.md): the adapter resumes
the thread, injects the answers as the items the model would have seen
(``thread/inject_items``) and starts a turn with no new input.

* a host call with a recorded result (:mod:`harness_dbos.runtime_tool`) is answered with
  it; one a crash interrupted with :data:`~harness_dbos.INTERRUPTED`; one never started
  with :data:`~harness_dbos.claude_code_resume.NOT_STARTED` (none runs);
* a call the turn was paused on waits again, and the delivered answer answers it;
* a built-in Codex ran or was about to run is left to Codex.

Plugins never import each other: this reads the adapter's public ``settings`` (``home``,
``codex_home``), the session's ``thread_id`` / ``home`` / ``codex_home`` attributes and the
rollout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, HarnessConfigurationError, HarnessSession, ToolOutput

from .claude_code_resume import NOT_STARTED
from .tool_step import INTERRUPTED

__all__ = ["CodexResume"]


class CodexResume:
    """The Codex resumer of a :class:`~harness_dbos.DurableAgent`.

    Args:
        agent: an agent on the ``codex`` harness.

    Raises:
        HarnessConfigurationError: the adapter has no ``home`` / ``codex_home`` setting (its
            homes would be temporary folders, which a crash leaves but nothing finds again).
    """

    harness_id = "codex"

    def __init__(self, agent: HarnessAgent) -> None:
        settings: Any = getattr(agent.adapter, "settings", None)
        if getattr(settings, "codex_home", None) is None and getattr(settings, "home", None) is None:
            raise HarnessConfigurationError(
                "DurableAgent: a durable Codex turn needs its thread in a durable folder every worker sees: "
                "pass harness_codex.codex(codex_home=...) (or home=...), not the default temporary home")
        self._host_tools = frozenset(agent.config.host_tools)

    def runtime_session(self, session: HarnessSession) -> dict[str, Any] | None:
        """``{"thread_id", "home", "codex_home"}`` once the thread exists, else ``None``."""
        adapter_session = session.adapter_session
        thread_id = getattr(adapter_session, "thread_id", None)
        if not isinstance(thread_id, str):
            return None
        return {"thread_id": thread_id, "home": str(getattr(adapter_session, "home", "")),
                "codex_home": str(getattr(adapter_session, "codex_home", ""))}

    def _rollout(self, runtime: Mapping[str, Any]) -> list[dict[str, Any]]:
        found = sorted(Path(runtime["codex_home"], "sessions").glob(f"**/rollout-*{runtime['thread_id']}.jsonl"))
        if not found:
            return []
        path = max(found, key=lambda p: p.stat().st_mtime)
        payloads: list[dict[str, Any]] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line the crash cut short
            payload = entry.get("payload") if isinstance(entry, dict) and entry.get("type") == "response_item" else None
            if isinstance(payload, dict):
                payloads.append(payload)
        return payloads

    def open_calls(self, runtime: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
        """The rollout's calls with no output: ``{call id: (name, decoded arguments)}``."""
        calls: dict[str, tuple[str, Any]] = {}
        for payload in self._rollout(runtime):
            call_id = payload.get("call_id")
            if not isinstance(call_id, str):
                continue
            if payload.get("type") == "function_call":
                try:
                    arguments = json.loads(payload.get("arguments") or "null")
                except ValueError:
                    arguments = None
                namespace = payload.get("namespace")
                name = str(payload.get("name", ""))
                calls[call_id] = (f"{namespace}__{name}" if namespace else name, arguments)
            elif payload.get("type") == "custom_tool_call":
                calls[call_id] = (str(payload.get("name", "")), payload.get("input"))
            elif payload.get("type") in ("function_call_output", "custom_tool_call_output"):
                calls.pop(call_id, None)
        return calls

    def holds_prompt(self, runtime: Mapping[str, Any], prompt: str) -> bool:
        """Whether the thread's last user message (not Codex's own context) is ``prompt``."""
        last: str | None = None
        for payload in self._rollout(runtime):
            if payload.get("type") == "message" and payload.get("role") == "user":
                text = "".join(str(c.get("text", "")) for c in payload.get("content") or () if isinstance(c, dict))
                if not text.lstrip().startswith("<"):
                    last = text
        return last is not None and last.strip() == prompt.strip()

    def continue_state(self, *, session_id: str, runtime: Mapping[str, Any], pause: Mapping[str, Any] | None,
                       outcomes: Mapping[str, ToolOutput], started: set[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """See :meth:`harness_dbos.resumer.RuntimeResumer.continue_state`."""
        paused_approvals = {a["tool_call_id"]: a for a in (pause or {}).get("pending_approvals", {}).values()}
        paused_results = dict((pause or {}).get("pending_tool_calls", {}))
        approvals: dict[str, Any] = {}
        pending_results: dict[str, Any] = {}
        adapter_pending: dict[str, dict[str, Any]] = {"approvals": {}, "tools": {}}
        answers: list[dict[str, Any]] = []
        for call_id, (name, arguments) in self.open_calls(runtime).items():
            host = name in self._host_tools
            if call_id in paused_approvals:
                approval = paused_approvals[call_id]
                approvals[approval["approval_id"]] = approval
                call = {"tool_call_id": call_id, "tool_name": approval["tool_name"], "input": approval["input"],
                        "native_tool_name": approval.get("native_tool_name")}
                if host:
                    adapter_pending["tools"][call_id] = call
                else:
                    adapter_pending["approvals"][approval["approval_id"]] = call
                continue
            if not host:
                continue  # a built-in Codex ran or was about to: Codex handles it on resume
            pending_results[call_id] = paused_results.get(call_id) or {
                "tool_call_id": call_id, "tool_name": name, "input": arguments, "native_tool_name": None,
                "provider_metadata": {}}
            adapter_pending["tools"][call_id] = {"tool_call_id": call_id, "tool_name": name, "input": arguments,
                                                 "native_tool_name": None}
            if call_id in paused_results:
                continue  # a client-side call: its result comes with the answers
            output = outcomes.get(call_id) or ToolOutput(INTERRUPTED if call_id in started else NOT_STARTED,
                                                         is_error=True)
            answers.append({"tool_call_id": call_id, "output": output, "is_error": output.is_error})
        if not approvals and not pending_results:
            return None
        adapter = {**self._adapter_state(runtime), "pending": adapter_pending}
        state = {"version": 1, "kind": "suspended-turn", "harness_id": self.harness_id, "session_id": session_id,
                 "state": "awaiting-approval" if approvals else "awaiting-tool-result",
                 "pending_approvals": approvals, "pending_tool_results": pending_results, "decided": {},
                 "adapter": adapter}
        return state, answers

    def resume_state(self, *, session_id: str, runtime: Mapping[str, Any]) -> dict[str, Any]:
        """The stopped-session state resuming the thread."""
        return {"version": 1, "kind": "stopped-session", "harness_id": self.harness_id, "session_id": session_id,
                "adapter": self._adapter_state(runtime)}

    @staticmethod
    def _adapter_state(runtime: Mapping[str, Any]) -> dict[str, Any]:
        return {"version": 1, "thread_id": runtime["thread_id"], "home": runtime["home"],
                "codex_home": runtime["codex_home"], "owned": False}
