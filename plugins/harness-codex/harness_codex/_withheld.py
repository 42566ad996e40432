"""Calls to inactive (withheld) host tools, seen in Codex's raw Responses items.

A host tool the session withholds (``StartRequest.withheld_host_tools``) is never declared to
Codex as a dynamic tool, so when the model calls it anyway Codex answers the model itself
(``unsupported call: <name>``) and sends no thread item or ``item/tool/call`` for it. With
``experimentalRawEvents`` on ``thread/start`` (codex 0.171.0 app-server) Codex also sends
``rawResponseItem/completed`` for every Responses item: the model's ``function_call``
(``name``, ``call_id``, ``arguments`` as a JSON string) and Codex's ``function_call_output``
(``call_id``, ``output``: a string or a list of content items). This module pairs the two and
projects the call as ``tool-call`` then ``tool-output-denied`` (nothing ran).

``thread/resume`` takes no ``experimentalRawEvents``, so on a resumed thread (``resume_from``,
or a new app-server for the same session) the same items are read from the thread's rollout
file (``response_item`` lines, see ``_rollout``) when the turn completes: what was appended
since the turn started.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness_core import ToolCallPart, ToolOutputDeniedPart

__all__ = ["WithheldCalls"]


class WithheldCalls:
    """Pairs raw ``function_call`` / ``function_call_output`` items of withheld host tools.

    Args:
        names: the withheld host tool names (as the model calls them: Codex declares host
            tools under their own names).
        rollout: for a resumed thread (no raw items), the rollout file and its size in bytes
            when the turn started; :meth:`at_end` reads what was appended since.
    """

    def __init__(self, names: frozenset[str], rollout: tuple[Path, int] | None = None) -> None:
        self._names = names
        self._rollout = rollout
        self._calls: dict[str, tuple[str, Any]] = {}

    def raw_item(self, item: Mapping[str, Any], known: Callable[[str], bool]) -> list[object]:
        """Parts for one raw item: ``[]`` until the output of a withheld call arrives, then
        ``[ToolCallPart, ToolOutputDeniedPart]``. ``known(call_id)``: Codex reported the call
        as a thread item (a built-in of the same name), so it is not projected here."""
        kind, call_id = item.get("type"), str(item.get("call_id") or "")
        if kind == "function_call" and item.get("name") in self._names and call_id and not known(call_id):
            self._calls[call_id] = (str(item["name"]), _arguments(item.get("arguments")))
            return []
        if kind != "function_call_output" or call_id not in self._calls:
            return []
        name, arguments = self._calls.pop(call_id)
        if known(call_id):
            return []  # Codex ran it as a built-in after all: its thread items project it
        told = _output_text(item.get("output"))
        return [
            ToolCallPart(tool_call_id=call_id, tool_name=name, input=arguments),
            ToolOutputDeniedPart(tool_call_id=call_id, tool_name=name, reason=(
                f"tool {name!r} is inactive in this session and was never offered to Codex, "
                f"which refused the call itself and told the model: {told}")),
        ]

    def at_end(self, known: Callable[[str], bool]) -> list[object]:
        """At ``turn/completed``: the parts for the rollout's ``response_item`` lines appended
        since the turn started (``known`` as for :meth:`raw_item`); ``[]`` without a rollout
        or when it cannot be read."""
        if self._rollout is None:
            return []
        path, offset = self._rollout
        try:
            with path.open("rb") as handle:
                handle.seek(offset)
                lines = handle.read().decode("utf-8", errors="replace").splitlines()
        except OSError:
            return []
        parts: list[object] = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            payload = entry.get("payload") if isinstance(entry, Mapping) and entry.get("type") == "response_item" else None
            if isinstance(payload, Mapping):
                parts += self.raw_item(payload, known)
        return parts


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(str(part.get("text", "")) for part in output if isinstance(part, Mapping))
    return json.dumps(output)
