"""The search tools: ``grep`` (regular expressions in files), ``glob`` (paths by pattern)
and ``ls`` (one directory)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Final

from harness_core import (
    HarnessTool,
    ToolContext,
    ToolResources,
    define_harness_tool,
    sanitize_text,
)

from ..workspace import Workspace
from ._common import (
    BINARY_PROBE_BYTES,
    ToolError,
    cut_line,
    describe_os_error,
    settings_of,
    workspace_of,
)

__all__ = ["GLOB", "GREP", "LS", "glob_to_regex"]


def _search_resources(value: Any) -> ToolResources:
    return ToolResources(paths=(str(value.get("path") or "."),))


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob over ``/``-separated relative paths.

    ``*`` and ``?`` never cross ``/``; ``**`` as a whole segment matches any number of
    directories (zero included); ``[abc]`` and ``[!abc]`` are character classes.

    Raises:
        ValueError: the pattern is absolute or has a ``..`` segment.
    """
    if pattern.startswith("/"):
        raise ValueError(f"glob pattern {pattern!r} must be relative; give the directory in 'path'")
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ValueError(f"glob pattern {pattern!r} must not contain '..'")
    regex = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            regex += ".*" if last else "(?:.*/)?"
            continue
        regex += _segment_regex(segment) + ("" if last else "/")
    return re.compile(regex + r"\Z", re.DOTALL)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _base(workspace: Workspace, path: str) -> Path:
    try:
        base = workspace.resolve(path)
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    except ValueError as exc:
        raise ToolError(f"{path!r}: {exc}") from None
    if not base.exists():
        raise ToolError(f"{path!r} does not exist")
    return base


_EXCLUDE: Final[dict[str, Any]] = {
    "type": "array",
    "items": {"type": "string", "minLength": 1},
    "maxItems": 200,
    "description": "Paths (relative to the workspace root) to leave out, with everything below them.",
}


def _excluder(workspace: Workspace, input: dict[str, Any]) -> Any:
    """A predicate: True for a listed file that is, or lies below, an ``exclude`` entry
    (compared as listed and with links resolved, so a link to an excluded file is left
    out too)."""
    roots = [os.path.normpath(os.path.join(workspace.root, p)) for p in input.get("exclude") or ()]
    if not roots:
        return lambda file: False
    prefixes = tuple(dict.fromkeys(roots))

    def excluded(file: Path) -> bool:
        for candidate in (str(file), os.path.realpath(file)):
            if any(candidate == p or candidate.startswith(p.rstrip("/") + "/") for p in prefixes):
                return True
        return False

    return excluded


def _grep(input: dict[str, Any], context: ToolContext) -> str:
    pattern: str = input["pattern"]
    path: str = input.get("path") or "."
    file_glob: str | None = input.get("glob")
    settings = settings_of(context)
    limit: int = input.get("max_results", settings.grep_max_results)
    try:
        regex = re.compile(pattern, re.IGNORECASE if input.get("ignore_case") else 0)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise ToolError(f"invalid regular expression {pattern!r}: {exc.msg}{where} (Python re syntax)") from None
    name_filter: re.Pattern[str] | None = None
    match_names = bool(file_glob) and "/" not in (file_glob or "")
    if file_glob:
        try:
            name_filter = glob_to_regex(file_glob)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
    workspace = workspace_of(context)
    base = _base(workspace, path)
    files, cut = workspace.list_files(base, max_entries=settings.walk_max_entries)
    excluded = _excluder(workspace, input)
    files = [f for f in files if not excluded(f)]
    lines: list[str] = []
    total = 0
    cap = settings.grep_max_line_chars
    for file in files:
        if name_filter is not None:
            rel = file.relative_to(base).as_posix() if file != base else file.name
            if not (name_filter.match(rel) or (match_names and name_filter.match(file.name))):
                continue
        try:
            info = file.stat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > settings.grep_max_file_bytes:
                continue  # FIFOs and devices would block; big files are skipped
            data = file.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:BINARY_PROBE_BYTES]:
            continue
        shown = workspace.display(file)
        for number, line in enumerate(sanitize_text(data).splitlines(), start=1):
            if regex.search(line) is None:
                continue
            total += 1
            if len(lines) < limit:
                text = cut_line(line, cap)
                lines.append(f"{shown}:{number}:{text}")
    where = workspace.display(base)
    if not lines:
        body = f"No matches for {pattern!r} in {where}" + (f" (files matching {file_glob!r})" if file_glob else "")
    else:
        body = "\n".join(lines)
        if total > len(lines):
            body += f"\n\n[{total - len(lines)} more matching lines not shown; narrow the pattern, path or glob]"
    if cut:
        body += f"\n[search stopped after {settings.walk_max_entries} files; give a narrower path]"
    return body


GREP: Final[HarnessTool] = define_harness_tool(
    name="grep",
    description=(
        "Search file contents with a regular expression (Python re syntax). Returns matching lines "
        "as path:line:text. Searches the workspace, or the file or directory in 'path'; 'glob' "
        "keeps only files whose name or relative path matches (e.g. '*.py', 'src/**/*.ts'). "
        "Binary files, large files and generated directories (.git, node_modules...) are skipped."
    ),
    input={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "The regular expression."},
            "path": {"type": "string", "description": "File or directory to search (default: the workspace root)."},
            "glob": {"type": "string", "description": "Only search files matching this glob."},
            "ignore_case": {"type": "boolean", "description": "Match case-insensitively (default false)."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Most matching lines to return (default 200)."},
            "exclude": _EXCLUDE,
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    read_only=True,
    resources=_search_resources,
    execute=_grep,
)


def _glob(input: dict[str, Any], context: ToolContext) -> str:
    pattern: str = input["pattern"]
    path: str = input.get("path") or "."
    try:
        regex = glob_to_regex(pattern)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    settings = settings_of(context)
    workspace = workspace_of(context)
    base = _base(workspace, path)
    if not base.is_dir():
        raise ToolError(f"{path!r} is not a directory")
    files, cut = workspace.list_files(base, max_entries=settings.walk_max_entries)
    excluded = _excluder(workspace, input)
    files = [f for f in files if not excluded(f)]
    matches = [workspace.display(f) for f in files if regex.match(f.relative_to(base).as_posix())]
    if not matches:
        body = f"No files match {pattern!r} in {workspace.display(base)}"
    else:
        limit = settings.glob_max_results
        body = "\n".join(matches[:limit])
        if len(matches) > limit:
            body += f"\n\n[{len(matches) - limit} more paths not shown; use a narrower pattern]"
    if cut:
        body += f"\n[search stopped after {settings.walk_max_entries} files; give a narrower path]"
    return body


GLOB: Final[HarnessTool] = define_harness_tool(
    name="glob",
    description=(
        "Find files by path pattern, relative to 'path' (default: the workspace root). '*' and '?' "
        "stay within one directory; '**' spans directories ('**/*.py' finds Python files at any depth). "
        "Returns workspace-relative paths, sorted."
    ),
    input={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "The glob pattern, e.g. 'src/**/*.py'."},
            "path": {"type": "string", "description": "Directory to search from (default: the workspace root)."},
            "exclude": _EXCLUDE,
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    read_only=True,
    resources=_search_resources,
    execute=_glob,
)


def _ls(input: dict[str, Any], context: ToolContext) -> str:
    path: str = input.get("path") or "."
    settings = settings_of(context)
    workspace = workspace_of(context)
    base = _base(workspace, path)
    if not base.is_dir():
        raise ToolError(f"{path!r} is a file, not a directory; use read to see it")
    try:
        with os.scandir(base) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as exc:
        raise ToolError(describe_os_error(exc, path)) from None
    lines: list[str] = []
    for entry in entries[: settings.ls_max_entries]:
        if entry.is_symlink():
            try:
                target = os.readlink(entry.path)
            except OSError:
                target = "?"
            lines.append(f"{entry.name} -> {target}")
        elif entry.is_dir():
            lines.append(entry.name + "/")
        else:
            lines.append(entry.name)
    shown = workspace.display(base)
    if not lines:
        return f"{shown} is empty"
    body = "\n".join(lines)
    if len(entries) > settings.ls_max_entries:
        body += f"\n\n[{len(entries) - settings.ls_max_entries} more entries not shown]"
    return body


LS: Final[HarnessTool] = define_harness_tool(
    name="ls",
    description=(
        "List one directory of the workspace (default: the root). Directories end with '/'; "
        "symbolic links show their target."
    ),
    input={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Directory to list (default: the workspace root)."},
        },
        "additionalProperties": False,
    },
    read_only=True,
    resources=_search_resources,
    execute=_ls,
)
