"""How an ACP ``tool_call`` is presented to the host: name, input, metadata."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from harness_core import BuiltinTool, ToolCall

from ._builtins import BY_KIND, BY_NAME

__all__ = ["ToolIdentity", "identify", "normalized_input", "to_tool_call"]

HARNESS_ID: Final = "acp"
_GLOB: Final = re.compile(r"[*?\[]")
_SAFE_NAME: Final = re.compile(r"[^A-Za-z0-9_-]+")
_QUOTED_TOOL: Final = re.compile(r'tool "([^"]+)"')
_BOOKKEEPING: Final = frozenset({"call_id", "turn_id", "process_id", "started_at_ms", "completed_at_ms", "source"})
"""Keys agents put in ``rawInput`` for their own bookkeeping (Codex's ids and timestamps)."""


@attrs.frozen
class ToolIdentity:
    """A call's harness-facing identity.

    Attributes:
        tool_name: common name (``bash``), declared native name or, for undeclared kinds, a
            dynamic name derived from the title.
        builtin: the declared built-in, or ``None`` for a dynamic tool.
        native_tool_name: the declared native name (the ACP kind) or the agent's title.
        title: the agent's title for the call.
        kind: the ACP kind (``None`` when the agent sent none).
    """

    tool_name: str
    builtin: BuiltinTool | None
    native_tool_name: str
    title: str
    kind: str | None

    @property
    def dynamic(self) -> bool:
        """True for tools outside the declared set."""
        return self.builtin is None

    def metadata(self, call_id: str) -> dict[str, dict[str, Any]]:
        """``providerMetadata``: ``{"acp": {"nativeToolName", "title", "kind", "toolCallId"}}``."""
        entry: dict[str, Any] = {"nativeToolName": self.native_tool_name, "title": self.title, "toolCallId": call_id}
        if self.kind is not None:
            entry["kind"] = self.kind
        return {HARNESS_ID: entry}


def _looks_like_glob(raw: Mapping[str, Any], title: str) -> bool:
    for key in ("glob", "pattern", "query"):
        value = raw.get(key)
        if isinstance(value, str) and key == "glob":
            return True
        if isinstance(value, str) and key == "pattern" and _GLOB.search(value) and "/" in value:
            return True
    lowered = title.lower()
    return lowered.startswith(("glob", "find ", "list files"))


def mcp_call(raw_input: object) -> tuple[str, str, dict[str, Any]] | None:
    """``(server, tool, arguments)`` when ``rawInput`` describes an MCP tool call, else ``None``.

    Shapes (codex-acp 0.16): the call ``{"server", "tool", "arguments"}`` and its approval
    request ``{"server_name", "request": {"_meta": {"tool_params"}, "message": "... tool \"x\"?"}}``.
    """
    if not isinstance(raw_input, Mapping):
        return None
    server, tool = raw_input.get("server"), raw_input.get("tool")
    if isinstance(server, str) and isinstance(tool, str):
        arguments = raw_input.get("arguments")
        return server, tool, dict(arguments) if isinstance(arguments, Mapping) else {}
    server = raw_input.get("server_name")
    request = raw_input.get("request")
    if isinstance(server, str) and isinstance(request, Mapping):
        raw_meta = request.get("_meta")
        meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
        found = _QUOTED_TOOL.search(str(request.get("message", "")))
        if found is not None:
            params = meta.get("tool_params")
            return server, found.group(1), dict(params) if isinstance(params, Mapping) else {}
    return None


def identify(kind: str | None, title: str | None, raw_input: object = None) -> ToolIdentity:
    """Classify a tool call by its ACP ``kind`` (see :mod:`harness_acp._builtins`); MCP calls
    of the agent's own servers are ``mcp__<server>__<tool>`` (dynamic)."""
    title = title or (kind or "tool")
    raw = raw_input if isinstance(raw_input, Mapping) else {}
    mcp = mcp_call(raw)
    if mcp is not None:
        name = f"mcp__{mcp[0]}__{mcp[1]}"
        return ToolIdentity(name, None, name, title, kind)
    builtin = BY_KIND.get(kind or "")
    if kind == "search" and _looks_like_glob(raw, title):
        builtin = BY_NAME["glob"]
    if builtin is not None:
        return ToolIdentity(builtin.name, builtin, builtin.native_name, title, kind)
    name = _SAFE_NAME.sub("_", title).strip("_")[:64] or "tool"
    return ToolIdentity(name, None, title, title, kind)


def _command_text(command: object) -> str | None:
    if isinstance(command, str):
        return command
    if isinstance(command, Sequence) and command and all(isinstance(c, str) for c in command):
        parts: list[str] = [str(c) for c in command]
        if len(parts) >= 3 and parts[-2] in ("-c", "-lc") and posixpath.basename(parts[0]) in ("bash", "sh", "zsh"):
            return parts[-1]
        return shlex.join(parts)
    return None


def normalized_input(identity: ToolIdentity, raw_input: object, locations: Sequence[str] = ()) -> dict[str, Any]:
    """The call input the host sees.

    ``execute``: ``{"command": <shell text>, "cwd"?}`` (the agent's bookkeeping keys, such
    as Codex's turn ids, are left out); other kinds: the agent's ``rawInput`` with ``path``
    filled in from ``file_path`` or the first location.
    """
    data: dict[str, Any] = (
        {k: v for k, v in raw_input.items() if k not in _BOOKKEEPING} if isinstance(raw_input, Mapping) else {}
    )
    mcp = mcp_call(raw_input)
    if mcp is not None:
        return mcp[2]
    if identity.kind == "execute":
        command = _command_text(data.get("command")) or (identity.title if identity.title != identity.kind else None)
        result: dict[str, Any] = {"command": command} if command is not None else {}
        if isinstance(data.get("cwd"), str):
            result["cwd"] = data["cwd"]
        return result
    if identity.builtin is not None and "path" not in data:
        parsed = data.get("parsed_cmd")  # Codex: a shell read such as ``cat x`` reported as kind read
        first = parsed[0] if isinstance(parsed, list) and parsed and isinstance(parsed[0], Mapping) else {}
        path = data.get("file_path") or (locations[0] if locations else None) or first.get("path")
        if isinstance(path, str):
            data["path"] = path
    return data


def to_tool_call(call_id: str, identity: ToolIdentity, tool_input: dict[str, Any]) -> ToolCall:
    """The :class:`~harness_core.ToolCall` of a built-in call (for approvals)."""
    return ToolCall(
        tool_call_id=call_id, tool_name=identity.tool_name, input=tool_input, provider_executed=True,
        dynamic=identity.dynamic, native_tool_name=identity.native_tool_name,
        provider_metadata=identity.metadata(call_id),
    )
