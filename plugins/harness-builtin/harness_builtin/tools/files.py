"""The file tools: ``read``, ``write`` and ``edit``."""

from __future__ import annotations

from typing import Any, Final

from harness_core import (
    HarnessTool,
    ToolContext,
    ToolResources,
    define_harness_tool,
    sanitize_text,
)

from ._common import (
    BINARY_PROBE_BYTES,
    ToolError,
    cut_line,
    describe_os_error,
    settings_of,
    workspace_of,
)

__all__ = ["EDIT", "READ", "WRITE"]


def _path_resources(value: Any) -> ToolResources:
    return ToolResources(paths=(str(value["file_path"]),))


def _read(input: dict[str, Any], context: ToolContext) -> str:
    path: str = input["file_path"]
    offset: int = input.get("offset", 1)
    settings = settings_of(context)
    limit: int = input.get("limit", settings.read_max_lines)
    workspace = workspace_of(context)
    try:
        real = workspace.resolve(path)
        if real.is_dir():
            raise ToolError(f"{path!r} is a directory; use ls to list it")
        size = real.stat().st_size
        if size > settings.read_max_file_bytes:
            raise ToolError(
                f"{path!r} is {size} bytes, more than read allows ({settings.read_max_file_bytes}); "
                "use grep, or bash with head/sed, to look at parts of it"
            )
        data = workspace.read_bytes(path)
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    except ValueError as exc:
        raise ToolError(f"{path!r}: {exc}") from None
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        raise ToolError(f"{path!r} is a binary file ({len(data)} bytes); read only shows text files")
    text = sanitize_text(data)
    lines = text.splitlines()
    shown = workspace.display(real)
    if not lines:
        return f"(empty file: {shown})"
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end of {shown!r}, which has {len(lines)} lines")
    start = offset - 1
    chunk = lines[start : start + limit]
    cap = settings.read_max_line_chars
    body = "\n".join(
        f"{number:>6}\t{cut_line(line, cap)}"
        for number, line in enumerate(chunk, start=offset)
    )
    last = start + len(chunk)
    if last < len(lines) or start > 0:
        body += f"\n\n[lines {offset}-{last} of {len(lines)} in {shown}"
        body += f"; read on with offset={last + 1}]" if last < len(lines) else "]"
    return body


READ: Final[HarnessTool] = define_harness_tool(
    name="read",
    description=(
        "Read a text file in the workspace. Returns numbered lines (line number, tab, text). "
        "Use offset (1-based first line) and limit (number of lines) to read part of a long file. "
        "Binary files and directories are refused."
    ),
    input={
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "Path of the file, relative to the workspace root."},
            "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based (default 1)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read (default 2000)."},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    },
    read_only=True,
    resources=_path_resources,
    execute=_read,
)


def _write(input: dict[str, Any], context: ToolContext) -> str:
    path: str = input["file_path"]
    content: str = input["content"]
    workspace = workspace_of(context)
    data = content.encode("utf-8", errors="surrogatepass")
    try:
        real = workspace.resolve(path)
        if real.is_dir():
            raise ToolError(f"{path!r} is a directory; give a file path")
        created = workspace.write_bytes(path, data)
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    except ValueError as exc:
        raise ToolError(f"{path!r}: {exc}") from None
    verb = "Created" if created else "Overwrote"
    return f"{verb} {workspace.display(real)} ({len(data)} bytes, {len(content.splitlines())} lines)"


WRITE: Final[HarnessTool] = define_harness_tool(
    name="write",
    description=(
        "Create a file, or replace a file's whole content, in the workspace. Parent directories "
        "are created. Prefer edit to change part of an existing file."
    ),
    input={
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "Path of the file, relative to the workspace root."},
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    },
    resources=_path_resources,
    execute=_write,
)


def _snippet(text: str, index: int, length: int, context_lines: int = 2) -> str:
    lines = text.splitlines()
    first = text.count("\n", 0, index)
    last = first + text.count("\n", index, index + length)
    start = max(0, first - context_lines)
    end = min(len(lines), last + context_lines + 1)
    return "\n".join(f"{number:>6}\t{lines[number - 1]}" for number in range(start + 1, end + 1))


_LISTED_LINES: Final = 10


def _starts(text: str, old: str) -> list[int]:
    """Every index where ``old`` starts in ``text``, overlapping matches included."""
    starts: list[int] = []
    index = text.find(old)
    while index != -1:
        starts.append(index)
        index = text.find(old, index + 1)
    return starts


def _edit(input: dict[str, Any], context: ToolContext) -> str:
    path: str = input["file_path"]
    old: str = input["old_string"]
    new: str = input["new_string"]
    replace_all: bool = input.get("replace_all", False)
    if old == "":
        raise ToolError("old_string is empty; give the exact text to replace, or use write to create a file")
    if old == new:
        raise ToolError("old_string and new_string are the same; nothing would change")
    settings = settings_of(context)
    workspace = workspace_of(context)
    try:
        real = workspace.resolve(path)
        if real.is_dir():
            raise ToolError(f"{path!r} is a directory; give a file path")
        if real.exists() and real.stat().st_size > settings.read_max_file_bytes:
            raise ToolError(f"{path!r} is larger than edit allows ({settings.read_max_file_bytes} bytes)")
        data = workspace.read_bytes(path)
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path) + ("; use write to create it" if isinstance(exc, FileNotFoundError) else "")) from None
    except ValueError as exc:
        raise ToolError(f"{path!r}: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{path!r} is not UTF-8 text; edit would damage it") from None
    starts = _starts(text, old)
    if not starts and "\r\n" in text and "\r\n" not in old:
        # The model wrote LF line ends; the file uses CRLF.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        starts = _starts(text, old)
    count = len(starts)
    shown = workspace.display(real)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {shown}; read the file and copy the text exactly "
            "(whitespace and indentation included)"
        )
    if count > 1 and not replace_all:
        lines = sorted({text.count("\n", 0, start) + 1 for start in starts})
        listed = ", ".join(str(n) for n in lines[:_LISTED_LINES]) + (", ..." if len(lines) > _LISTED_LINES else "")
        raise ToolError(
            f"old_string occurs {count} times in {shown} (overlapping matches counted), starting on "
            f"line{'s' if len(lines) > 1 else ''} {listed}; include more surrounding text to make it "
            "unique, or set replace_all to true"
        )
    first = starts[0]
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    count = text.count(old)  # replace_all replaces non-overlapping matches, left to right
    try:
        workspace.write_bytes(path, updated.encode("utf-8"))
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    replaced = count if replace_all else 1
    noun = "occurrence" if replaced == 1 else "occurrences"
    return f"Edited {shown}: replaced {replaced} {noun}.\n" + _snippet(updated, first, len(new))


EDIT: Final[HarnessTool] = define_harness_tool(
    name="edit",
    description=(
        "Replace exact text in a file in the workspace. old_string must match the file exactly "
        "(whitespace included) and occur once, unless replace_all is true, which replaces every "
        "occurrence. Read the file first."
    ),
    input={
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "Path of the file, relative to the workspace root."},
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."},
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    },
    resources=_path_resources,
    execute=_edit,
)
