"""Tool-call bookkeeping of one ACP turn: which parts each ``tool_call`` update becomes.

The agent reports a call with ``tool_call`` and then ``tool_call_update`` payloads
(fields arrive piecemeal). The tracker merges them and decides what the host sees:

* a call the host decides (it came through ``session/request_permission``) gets no
  ``tool-call`` part from the adapter: the core emits it with the approval parts; the
  adapter emits only its final result, unless the host denied it;
* a call of the relay MCP server (a host tool) gets nothing: the core reports host calls;
* any other call is projected: ``tool-call`` (provider-executed, common name by ACP kind,
  ``providerMetadata.acp.nativeToolName``), then ``tool-result`` / ``tool-error`` when its
  status becomes ``completed`` / ``failed``. While built-in approvals are on, a call still
  ``pending`` is held back until it starts or a permission request claims it;
* ``diff`` content becomes a ``fileChange`` part after the call's result (a dynamic
  provider-executed call and its result, ``{"changes": [{"path", "kind"}], "toolCallId"}``,
  ``kind`` ``created`` when the diff has no old text, else ``modified``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, Final

import attrs

from harness_core import FILE_CHANGE_TOOL, Part, ToolCallPart, ToolErrorPart, ToolResultPart

from ._tools import ToolIdentity, identify, normalized_input

__all__ = ["CallTracker", "file_change_parts"]

_FINAL: Final = frozenset({"completed", "failed"})


_HOST_KINDS: Final = (None, "other")
"""The ACP tool kinds a relay (host tool) call can have: MCP tool calls are ``other``."""


@attrs.define
class _Call:
    call_id: str
    kind: str | None = None
    title: str | None = None
    raw_input: Any = None
    raw_output: Any = None
    locations: list[str] = attrs.field(factory=list)
    content: list[Any] = attrs.field(factory=list)
    terminal_output: list[str] = attrs.field(factory=list)
    status: str | None = None
    routed: str | None = None  # "approval" or "host"
    denied: bool = False
    emitted: bool = False
    finished: bool = False
    matched: bool = False
    frozen_input: dict[str, Any] | None = None
    frozen_identity: ToolIdentity | None = None

    def identity(self) -> ToolIdentity:
        """The identity, fixed at its first use so the call and its result carry the same name."""
        if self.frozen_identity is None:
            self.frozen_identity = identify(self.kind, self.title, self.raw_input)
        return self.frozen_identity

    def tool_input(self) -> dict[str, Any]:
        """The input, fixed at its first use so the call and its result carry the same one."""
        if self.frozen_input is None:
            self.frozen_input = normalized_input(self.identity(), self.raw_input, self.locations)
        return self.frozen_input


def _field(update: object, name: str) -> Any:
    return getattr(update, name, None)


def file_change_parts(change_id: str, changes: list[dict[str, str]], tool_call_id: str | None = None) -> list[Part]:
    """A ``fileChange`` call and its result: ``{"changes": [{"path", "kind"}], "toolCallId"?}``.

    ``kind`` is ``created``, ``modified`` or ``deleted`` (the built-in harness's convention).
    """
    change: dict[str, Any] = {"changes": changes}
    if tool_call_id is not None:
        change["toolCallId"] = tool_call_id
    return [
        ToolCallPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=change, provider_executed=True,
                     dynamic=True),
        ToolResultPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=change, output=change,
                       provider_executed=True, dynamic=True),
    ]


def _text_of(content: Any) -> str | None:
    inner = _field(content, "content")
    text = _field(inner, "text")
    return text if isinstance(text, str) else None


class CallTracker:
    """Per-turn tool-call state (see the module docstring).

    Args:
        hold_pending: hold back ``pending`` calls (built-in approvals are on and the agent
            may still ask for permission).
        hold_until_final: hold back every call until a permission request claims it or it
            ends (the agent asks about every call, but may report it running first: pi-acp).
        hold_seconds: otherwise, how long a call reported running is held back for a
            permission request that may follow (:meth:`release_due` lets it go).
        host_server: the relay MCP server's name (its calls are the core's to report).
    """

    def __init__(self, *, hold_pending: bool, host_server: str, hold_until_final: bool = False,
                 hold_seconds: float = 0.0) -> None:
        self._hold = hold_pending
        self._hold_all = hold_pending and hold_until_final
        self._hold_seconds = hold_seconds if hold_pending else 0.0
        self._held_until: dict[str, float] = {}
        self._host_server = host_server
        self._calls: dict[str, _Call] = {}

    def _call(self, call_id: str) -> _Call:
        call = self._calls.get(call_id)
        if call is None:
            call = self._calls[call_id] = _Call(call_id)
        return call

    def _merge(self, call: _Call, update: object) -> None:
        for name in ("kind", "title", "status"):
            value = _field(update, name)
            if value is not None:
                setattr(call, name, str(getattr(value, "value", value)))
        if _field(update, "raw_input") is not None:
            call.raw_input = _field(update, "raw_input")
        if _field(update, "raw_output") is not None:
            call.raw_output = _field(update, "raw_output")
        locations = _field(update, "locations")
        if locations:
            call.locations = [loc.path for loc in locations if isinstance(getattr(loc, "path", None), str)]
        content = _field(update, "content")
        if content:
            call.content = list(content)
        meta = _field(update, "field_meta")
        if isinstance(meta, Mapping):
            output = meta.get("terminal_output")
            if isinstance(output, Mapping) and isinstance(output.get("data"), str):
                call.terminal_output.append(output["data"])
        if call.routed is None and self._looks_host(call):
            call.routed = "host"

    def _looks_host(self, call: _Call) -> bool:
        # Fail closed: the title is the agent's text (codex-acp titles a command with the
        # command line itself, so "harness/x; touch f" looked like a relay call and was
        # allowed unasked); a call of a built-in kind is never a host call.
        if call.kind not in _HOST_KINDS:
            return False
        raw = call.raw_input if isinstance(call.raw_input, Mapping) else {}
        if raw.get("server") == self._host_server or raw.get("server_name") == self._host_server:
            return True
        title = call.title or ""
        server = self._host_server
        return title.startswith((f"mcp__{server}__", f"{server}/", f"{server}.", f"{server}__", f"Tool: {server}/"))

    # -- feeding ---------------------------------------------------------------------------

    def claim_for_approval(self, update: object) -> tuple[str, ToolIdentity, dict[str, Any]]:
        """A permission request for a call: the host decides it. Returns (call id, identity, input)."""
        call_id = str(_field(update, "tool_call_id"))
        call = self._call(call_id)
        self._merge(call, update)
        call.routed = "approval"
        return call_id, call.identity(), call.tool_input()

    def is_host_call(self, update: object) -> bool:
        """True when a permission request is about a relay (host tool) call."""
        probe = _Call("probe")
        self._merge(probe, update)
        return probe.routed == "host"

    def mark_denied(self, call_id: str) -> None:
        """The host denied ``call_id``: the core reports it; its result is never projected."""
        self._call(call_id).denied = True

    def take_host_call(self, tool_name: str) -> str | None:
        """The id of the agent's own not yet matched relay call of ``tool_name``, if it reported one."""
        for call in self._calls.values():
            if call.routed != "host" or call.matched:
                continue
            raw = call.raw_input if isinstance(call.raw_input, Mapping) else {}
            if raw.get("tool") == tool_name or tool_name in (call.title or ""):
                call.matched = True
                return call.call_id
        return None

    def mark_host(self, call_id: str) -> None:
        """``call_id`` is a host tool call (reported by the core)."""
        self._call(call_id).routed = "host"

    def on_update(self, update: object) -> list[Part]:
        """The parts a ``tool_call`` / ``tool_call_update`` payload produces."""
        call = self._call(str(_field(update, "tool_call_id")))
        self._merge(call, update)
        if call.routed == "host" or call.finished:
            return []
        parts: list[Part] = []
        held = self._hold and call.routed is None and (
            call.status == "pending" or (self._hold_all and call.status not in _FINAL))
        if not held and not call.emitted and call.routed is None and call.status not in _FINAL and self._hold_seconds:
            until = self._held_until.setdefault(call.call_id, time.monotonic() + self._hold_seconds)
            held = time.monotonic() < until
        if not call.emitted and call.routed is None and not held:
            parts.append(self._call_part(call))
            call.emitted = True
        if call.status in _FINAL:
            call.finished = True
            if not call.denied:
                if call.routed is None and not call.emitted:  # it ended without being asked about
                    parts.append(self._call_part(call))
                    call.emitted = True
                parts.append(self._result_part(call))
                parts.extend(self._changes(call))
        return parts

    def next_release(self) -> float | None:
        """When the next call held back for a possible permission request is due (monotonic), or ``None``."""
        due = [until for call_id, until in self._held_until.items() if self._still_held(call_id)]
        return min(due) if due else None

    def _still_held(self, call_id: str) -> bool:
        call = self._calls.get(call_id)
        return call is not None and not call.emitted and call.routed is None and not call.finished

    def release_due(self, now: float) -> list[Part]:
        """``tool-call`` parts of held calls no permission request claimed in time."""
        parts: list[Part] = []
        for call_id, until in list(self._held_until.items()):
            if not self._still_held(call_id):
                del self._held_until[call_id]
            elif until <= now:
                del self._held_until[call_id]
                call = self._calls[call_id]
                parts.append(self._call_part(call))
                call.emitted = True
        return parts

    def flush(self) -> list[Part]:
        """At the turn's end: calls held back or still open get a call part and an error."""
        parts: list[Part] = []
        for call in self._calls.values():
            if call.routed == "host" or call.finished or call.denied:
                continue
            if call.routed is None and not call.emitted:
                parts.append(self._call_part(call))
            call.finished = True
            identity = call.identity()
            parts.append(ToolErrorPart(
                tool_call_id=call.call_id, tool_name=identity.tool_name, input=call.tool_input(),
                error="the agent ended the turn before this call finished", provider_executed=True,
                dynamic=identity.dynamic or None, provider_metadata=identity.metadata(call.call_id),
            ))
        return parts

    # -- parts -----------------------------------------------------------------------------

    def _call_part(self, call: _Call) -> ToolCallPart:
        identity = call.identity()
        return ToolCallPart(
            tool_call_id=call.call_id, tool_name=identity.tool_name, input=call.tool_input(), provider_executed=True,
            dynamic=identity.dynamic or None, provider_metadata=identity.metadata(call.call_id),
        )

    def _output(self, call: _Call) -> str:
        raw = call.raw_output
        if isinstance(raw, Mapping):
            for key in ("formatted_output", "aggregated_output", "output", "stdout", "stderr"):
                if isinstance(raw.get(key), str) and raw[key]:
                    return str(raw[key])
            if isinstance(raw.get("exit_code"), int):
                return f"exit code {raw['exit_code']}"
        texts = [t for t in (_text_of(c) for c in call.content) if t is not None]
        if texts:
            return "\n".join(texts)
        if call.terminal_output:
            return "".join(call.terminal_output)
        if isinstance(raw, str):
            return raw
        return json.dumps(raw, default=str) if raw is not None else ""

    def _result_part(self, call: _Call) -> Part:
        identity = call.identity()
        common = {"tool_call_id": call.call_id, "tool_name": identity.tool_name, "input": call.tool_input(),
                  "provider_executed": True, "dynamic": identity.dynamic or None,
                  "provider_metadata": identity.metadata(call.call_id)}
        if call.status == "failed":
            return ToolErrorPart(error=self._output(call) or "the tool call failed", **common)
        return ToolResultPart(output=self._output(call), **common)

    def _changes(self, call: _Call) -> list[Part]:
        changes: list[dict[str, str]] = []
        for content in call.content:
            path = _field(content, "path")
            if _field(content, "type") == "diff" and isinstance(path, str):
                changes.append({"path": path, "kind": "created" if _field(content, "old_text") is None else "modified"})
        if not changes:
            return []
        return file_change_parts(f"{call.call_id}-fileChange", changes, call.call_id)
