"""How ``harness run`` shows a turn: the rich :class:`Renderer`, the NDJSON :class:`JsonWriter`,
and the :class:`Stats` behind the closing summary and the exit status (:data:`EXIT_CODES`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, TextIO

from rich.console import Console
from rich.text import Text

from harness_core.parts.models import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
)

__all__ = ["EXIT_CODES", "JsonWriter", "Renderer", "Stats"]

EXIT_CODES: Final[Mapping[str, int]] = {
    "stop": 0,
    "tool-calls": 0,
    "error": 1,
    "length": 3,
    "content-filter": 3,
    "other": 3,
    "unknown": 1,
    "awaiting-approval": 4,
    "awaiting-tool-result": 4,
    "aborted": 130,
}
"""Exit status by the turn's final finish reason."""

_RESULT_LINES: Final = 8
_RESULT_CHARS: Final = 1200
_INPUT_CHARS: Final = 240

def _short(value: Any, limit: int = _INPUT_CHARS) -> str:
    """``value`` on one line of at most ``limit`` characters (mappings as key=JSON pairs)."""
    if isinstance(value, Mapping):
        text = " ".join(f"{key}={json.dumps(item, ensure_ascii=False)}" for key, item in value.items())
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut_block(text: str) -> str:
    """The first lines of a result and its last one (where exit codes and summaries are)."""
    lines = text.splitlines() or [""]
    if len(lines) <= _RESULT_LINES:
        shown, hidden, last = lines, 0, None
    else:
        shown, hidden, last = lines[: _RESULT_LINES - 1], len(lines) - _RESULT_LINES, lines[-1]
    out = "\n".join(shown)
    if len(out) > _RESULT_CHARS:
        out = out[:_RESULT_CHARS] + "…"
    if last is not None:
        out += f"\n… {hidden} more line(s)\n{last[:_RESULT_CHARS]}"
    return out


def _indent(text: str) -> str:
    """``text`` under a result marker, every line indented."""
    lines = text.splitlines() or [""]
    return "\n".join(("  ⎿ " if i == 0 else "    ") + line for i, line in enumerate(lines))


class Stats:
    """What a run did, for the closing summary and for commands invoking ``run``."""

    def __init__(self) -> None:
        self.tool_calls = 0
        self.builtin_calls = 0
        self.host_calls = 0
        self.approvals = 0
        self.denials = 0
        self.file_changes: list[dict[str, str]] = []
        self.compactions = 0
        self.errors: list[str] = []
        self.usage = Usage()
        self.finish_reason = "unknown"
        self.aborted = False
        self.succeeded: dict[str, int] = {}

    def observe(self, part: Part) -> None:
        if isinstance(part, ToolCallPart) and not part.invalid:
            if part.tool_name == FILE_CHANGE_TOOL:
                changes = part.input.get("changes", []) if isinstance(part.input, Mapping) else []
                self.file_changes.extend(c for c in changes if isinstance(c, dict))
            elif part.tool_name == COMPACTION_TOOL:
                self.compactions += 1
            else:
                self.tool_calls += 1
                if part.provider_executed:
                    self.builtin_calls += 1
                else:
                    self.host_calls += 1
        elif isinstance(part, ToolResultPart):
            if not part.preliminary and part.tool_name not in (FILE_CHANGE_TOOL, COMPACTION_TOOL):
                self.succeeded[part.tool_name] = self.succeeded.get(part.tool_name, 0) + 1
        elif isinstance(part, AbortPart):
            self.aborted = True
        elif isinstance(part, ToolApprovalResponsePart):
            if part.approved:
                self.approvals += 1
            else:
                self.denials += 1
        elif isinstance(part, ErrorPart):
            self.errors.append(part.error)
        elif isinstance(part, FinishStepPart):
            self.usage = self.usage + part.usage
        elif isinstance(part, FinishPart):
            self.finish_reason = part.finish_reason

    def to_json(self) -> dict[str, Any]:
        return {
            "finish_reason": self.finish_reason,
            "tool_calls": self.tool_calls,
            "builtin_calls": self.builtin_calls,
            "host_calls": self.host_calls,
            "approvals": self.approvals,
            "denials": self.denials,
            "file_changes": list(self.file_changes),
            "compactions": self.compactions,
            "errors": list(self.errors),
            "aborted": self.aborted,
            "succeeded_tools": dict(self.succeeded),
            "usage": self.usage.model_dump(mode="json", by_alias=True, exclude_none=True),
        }


class Renderer:
    """Renders stream parts on a rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._inline = False

    def _line(self, renderable: Text | str) -> None:
        if self._inline:
            self.console.print()
            self._inline = False
        self.console.print(renderable)

    def part(self, part: Part) -> None:
        if isinstance(part, TextDeltaPart):
            self.console.print(Text(part.text), end="")
            self._inline = True
        elif isinstance(part, TextEndPart | ReasoningEndPart):
            if self._inline:
                self.console.print()
                self._inline = False
        elif isinstance(part, ReasoningStartPart):
            self._line(Text("thinking…", style="dim italic"))
        elif isinstance(part, ReasoningDeltaPart):
            self.console.print(Text(part.text, style="dim italic"), end="")
            self._inline = True
        elif isinstance(part, ToolCallPart):
            self._tool_call(part)
        elif isinstance(part, ToolResultPart):
            self._tool_result(part)
        elif isinstance(part, ToolErrorPart):
            self._line(Text(_indent(_cut_block(part.error)), style="red"))
        elif isinstance(part, ToolOutputDeniedPart):
            self._line(Text(_indent(f"denied: {part.reason or 'no reason given'}"), style="yellow"))
        elif isinstance(part, ToolApprovalResponsePart):
            verdict = "✓ approved" if part.approved else "✗ denied"
            self._line(Text(f"  {verdict}", style="green" if part.approved else "yellow"))
        elif isinstance(part, ErrorPart):
            kind = f" [{part.error_type}]" if part.error_type else ""
            self._line(Text(f"error{kind}: {part.error}", style="bold red"))
        elif isinstance(part, AbortPart):
            self._line(Text(f"aborted{': ' + part.reason if part.reason else ''}", style="yellow"))

    def _tool_call(self, part: ToolCallPart) -> None:
        if part.invalid:
            self._line(Text(f"⚠ unusable call to {part.tool_name}: {part.error}", style="yellow"))
            return
        if part.tool_name == FILE_CHANGE_TOOL:
            changes = part.input.get("changes", []) if isinstance(part.input, Mapping) else []
            marks = {"created": "+", "modified": "~", "deleted": "-"}
            listed = ", ".join(f"{marks.get(c.get('kind', ''), '?')}{c.get('path')}" for c in changes)
            self._line(Text(f"✎ files changed: {listed}", style="magenta"))
            return
        if part.tool_name == COMPACTION_TOOL:
            trigger = part.input.get("trigger", "") if isinstance(part.input, Mapping) else ""
            self._line(Text(f"⟳ compacting the conversation ({trigger})", style="magenta"))
            return
        origin = "built-in" if part.provider_executed else "host"
        line = Text("● ", style="cyan")
        line.append(part.tool_name, style="bold cyan")
        line.append(f" [{origin}] ", style="dim")
        line.append(_short(part.input))
        self._line(line)

    def _tool_result(self, part: ToolResultPart) -> None:
        if part.preliminary or part.tool_name == FILE_CHANGE_TOOL:
            return
        if part.tool_name == COMPACTION_TOOL:
            output = part.output if isinstance(part.output, Mapping) else {}
            if "skipped" in output:
                self._line(Text(_indent(f"nothing to compact: {output['skipped']}"), style="magenta"))
            else:
                self._line(Text(_indent(f"compacted to {output.get('messagesAfter')} messages"), style="magenta"))
            return
        output = part.output
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
        self._line(Text(_indent(_cut_block(text)), style="dim"))

    def approval_prompt(self, part: ToolApprovalRequestPart) -> None:
        call = part.tool_call
        origin = "built-in" if call.provider_executed else "host"
        line = Text("? ", style="bold yellow")
        line.append(f"approve {call.tool_name} [{origin}] ", style="bold")
        line.append(_short(call.input))
        self._line(line)

    def note(self, text: str, style: str = "yellow") -> None:
        self._line(Text(text, style=style))

    def summary(self, stats: Stats) -> None:
        usage = stats.usage
        tokens = f"{usage.input_tokens or 0} in / {usage.output_tokens or 0} out"
        style = "green" if stats.finish_reason == "stop" else "yellow" if EXIT_CODES.get(stats.finish_reason) != 1 else "red"
        line = Text(f"── finish: {stats.finish_reason}", style=f"bold {style}")
        line.append(f" · {stats.tool_calls} tool call(s) · tokens {tokens}", style="dim")
        if stats.file_changes:
            line.append(f" · {len(stats.file_changes)} file change(s)", style="dim")
        self._line(line)


class JsonWriter:
    """Writes every part as one JSON line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def part(self, part: Part) -> None:
        self.stream.write(json.dumps(part.to_json(), ensure_ascii=False) + "\n")
        self.stream.flush()
