"""Codex thread items (``item/started`` / ``item/completed``) as harness-core stream parts.

Item shapes are the generated models in :mod:`harness_codex._protocol` (codex 0.171.0
JSON Schema). Built-in calls get their common name (``bash``, ``edit``, ``write``,
``webSearch``) with ``provider_metadata["codex"]["nativeToolName"]``; a ``fileChange`` item
also yields one dynamic ``fileChange`` call/result pair per changed file; a
``contextCompaction`` item yields a dynamic ``compaction`` pair; MCP calls are named
``mcp__<server>__<tool>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    BuiltinTool,
    Part,
    ToolCall,
    ToolCallPart,
    ToolErrorPart,
    ToolKind,
    ToolResultPart,
    mcp_tool_name,
)

from . import _protocol as p
from ._builtins import patch_tool_name, unwrap_command
from ._settings import HARNESS_ID, NATIVE_PATCH, NATIVE_SHELL

__all__ = ["builtin_call", "call_part", "compaction_parts", "file_change_parts", "mcp_tool", "result_part"]

def mcp_tool(item: Mapping[str, Any]) -> BuiltinTool:
    """The run-time declaration of an MCP tool (for ``BuiltinApprovalRequest.tool``): read-only
    when the server marks it ``readOnlyHint``, else an edit."""
    mcp = p.McpToolCallThreadItem.model_validate(item)
    return BuiltinTool(name=mcp_tool_name(mcp.server, mcp.tool), native_name=mcp_tool_name(mcp.server, mcp.tool),
                       kind=ToolKind.READ_ONLY if mcp.readOnlyHint else ToolKind.EDIT,
                       description=f"MCP tool {mcp.tool!r} of server {mcp.server!r}")


def _metadata(native: str) -> dict[str, dict[str, Any]]:
    return {HARNESS_ID: {"nativeToolName": native}}


def _changes(item: p.FileChangeThreadItem) -> list[dict[str, Any]]:
    return [{"path": c.path, "kind": c.kind.model_dump(mode="json", exclude_none=True), "diff": c.diff}
            for c in item.changes]


def builtin_call(item: Mapping[str, Any]) -> ToolCall | None:
    """The built-in :class:`ToolCall` a command, patch, web-search or MCP item stands for, else ``None``."""
    kind = item.get("type")
    if kind == "commandExecution":
        command = p.CommandExecutionThreadItem.model_validate(item)
        native_input = {"command": unwrap_command(command.command), "cwd": command.cwd}
        return ToolCall(tool_call_id=command.id, tool_name="bash", input=native_input, provider_executed=True,
                        native_tool_name=NATIVE_SHELL, provider_metadata=_metadata(NATIVE_SHELL))
    if kind == "fileChange":
        patch = p.FileChangeThreadItem.model_validate(item)
        changes = _changes(patch)
        return ToolCall(tool_call_id=patch.id, tool_name=patch_tool_name(changes), input={"changes": changes},
                        provider_executed=True, native_tool_name=NATIVE_PATCH, provider_metadata=_metadata(NATIVE_PATCH))
    if kind == "mcpToolCall":
        mcp = p.McpToolCallThreadItem.model_validate(item)
        name = mcp_tool_name(mcp.server, mcp.tool)
        return ToolCall(tool_call_id=mcp.id, tool_name=name, input=mcp.arguments or {}, provider_executed=True,
                        dynamic=True)
    if kind == "webSearch":
        search = p.WebSearchThreadItem.model_validate(item)
        return ToolCall(tool_call_id=search.id, tool_name="webSearch", input={"query": search.query},
                        provider_executed=True, native_tool_name="web_search", provider_metadata=_metadata("web_search"))
    return None


def call_part(call: ToolCall) -> ToolCallPart:
    """The ``tool-call`` part the adapter emits itself for a call no approval announced."""
    return ToolCallPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                        provider_executed=True, dynamic=call.dynamic or None,
                        provider_metadata={k: dict(v) for k, v in call.provider_metadata.items()} or None)


def _command_result(item: p.CommandExecutionThreadItem) -> tuple[str, bool]:
    output = item.aggregatedOutput or ""
    if item.status == "failed" or (item.exitCode is not None and item.exitCode != 0):
        return f"{output}\n[exit code {item.exitCode}]".lstrip("\n"), item.status == "failed"
    return output, False


def _mcp_result(item: p.McpToolCallThreadItem) -> tuple[Any, bool]:
    if item.error is not None:
        return item.error.message, True
    if item.result is None:
        return "", False
    texts = [c.get("text") for c in item.result.content if isinstance(c, Mapping) and c.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str)), False


def result_part(call: ToolCall, item: Mapping[str, Any]) -> Part | None:
    """The final ``tool-result`` / ``tool-error`` of a completed built-in item (``None`` when declined)."""
    kind = item.get("type")
    output: Any
    if kind == "commandExecution":
        command = p.CommandExecutionThreadItem.model_validate(item)
        if command.status == "declined":
            return None
        output, failed = _command_result(command)
    elif kind == "fileChange":
        patch = p.FileChangeThreadItem.model_validate(item)
        if patch.status == "declined":
            return None
        failed = patch.status == "failed"
        output = ("patch failed: " if failed else "applied: ") + ", ".join(c.path for c in patch.changes)
    elif kind == "mcpToolCall":
        output, failed = _mcp_result(p.McpToolCallThreadItem.model_validate(item))
    else:
        output, failed = "", False
    metadata = {k: dict(v) for k, v in call.provider_metadata.items()} or None
    if failed:
        return ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                             error=str(output), provider_executed=True, dynamic=call.dynamic or None,
                             provider_metadata=metadata)
    return ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                          output=output, provider_executed=True, dynamic=call.dynamic or None,
                          provider_metadata=metadata)


_KINDS: Final = {"add": "created", "update": "modified", "delete": "deleted"}


def file_change_parts(item: Mapping[str, Any]) -> list[Part]:
    """One dynamic ``fileChange`` call/result pair for a completed patch:
    ``{"changes": [{"path", "kind": "created" | "modified" | "deleted", "diff"}], "toolCallId"}``."""
    patch = p.FileChangeThreadItem.model_validate(item)
    if patch.status != "completed" or not patch.changes:
        return []
    changes = [{"path": c["path"], "kind": _KINDS.get(str(c["kind"].get("type")), "modified"), "diff": c["diff"]}
               for c in _changes(patch)]
    data = {"changes": changes, "toolCallId": patch.id}
    change_id = f"{patch.id}-fileChange"
    return [
        ToolCallPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data, provider_executed=True,
                     dynamic=True),
        ToolResultPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data, output=data,
                       provider_executed=True, dynamic=True),
    ]


def compaction_parts(item: Mapping[str, Any]) -> list[Part]:
    """A dynamic ``compaction`` call/result pair for a ``contextCompaction`` item."""
    compaction = p.ContextCompactionThreadItem.model_validate(item)
    return [
        ToolCallPart(tool_call_id=compaction.id, tool_name=COMPACTION_TOOL, input={}, provider_executed=True,
                     dynamic=True),
        ToolResultPart(tool_call_id=compaction.id, tool_name=COMPACTION_TOOL, input={}, output={"summary": None},
                       provider_executed=True, dynamic=True),
    ]
