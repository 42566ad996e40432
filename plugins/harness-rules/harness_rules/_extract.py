"""Baseline resource extractors for the common built-in tools' inputs.

Adapters declare their built-ins with ``resources`` extractors; these baseline extractors
are used when a built-in call arrives without resources (an adapter that declares none, an
undeclared native) and by ``harness rules check`` for a tool name no adapter declares.
They read the inputs the runtimes commonly send:

=========================  ==============================================================
tool                       input keys
=========================  ==============================================================
read, write, edit          ``file_path``, ``path``, ``notebook_path``, ``filePath``
edit (``apply_patch``)     the patch text (``input``, ``patch`` or the raw input): every
                           ``*** Add/Update/Delete File:`` and ``*** Move to:`` path
bash                       ``command`` or ``cmd`` (a string, or an argv list joined with
                           shell quoting); ``workdir``/``cwd`` becomes a leading ``cd``
grep                       ``path`` or ``paths`` (default ``.``, the workspace root)
glob                       ``path`` (default ``.``) joined with the literal directory
                           prefix of ``pattern`` (``src/**/*.py`` searches ``src``)
=========================  ==============================================================
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from harness_core import BuiltinTool, ToolKind, ToolResources

from ._names import canonical_tool

__all__ = ["BASELINE_BUILTINS", "PATH_KEYS", "baseline_resources", "malformed_path", "missing_input"]

PATH_KEYS: Final = ("file_path", "path", "notebook_path", "filePath")
"""Input keys naming the file of a ``read`` / ``write`` / ``edit`` call, in order of preference."""
_PATCH_FILE: Final = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_MAGIC: Final = re.compile(r"[*?\[{]")


def baseline_resources(names: Iterable[str], tool_input: Any) -> ToolResources | None:
    """Resources for a built-in known by ``names`` (common or native), from its input.

    Returns:
        The :class:`~harness_core.ToolResources`, or ``None`` for a tool these extractors
        do not know (it is then matched by name only).
    """
    names = list(names)
    if "apply_patch" in names:
        return ToolResources(paths=_patch_paths(tool_input))
    canonical = {canonical_tool(n) for n in names}
    data: Mapping[str, Any] = tool_input if isinstance(tool_input, Mapping) else {}
    if canonical & {"read", "write", "edit"}:
        return ToolResources(paths=tuple(str(data[k]) for k in PATH_KEYS if isinstance(data.get(k), str)))
    if "bash" in canonical:
        return ToolResources(command=_command(data))
    if "grep" in canonical:
        paths = data.get("paths")
        if isinstance(paths, Sequence) and not isinstance(paths, str) and paths:
            return ToolResources(paths=tuple(str(p) for p in paths))
        return ToolResources(paths=(str(data.get("path") or "."),))
    if "glob" in canonical:
        return ToolResources(paths=(_glob_root(str(data.get("path") or "."), data.get("pattern")),))
    return None


def _command(data: Mapping[str, Any]) -> str | None:
    raw = data.get("command", data.get("cmd"))
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        command = shlex.join(str(part) for part in raw)
    elif isinstance(raw, str):
        command = raw
    else:
        return None  # no command: the call cannot be judged (see missing_input)
    workdir = data.get("workdir") or data.get("cwd")
    if isinstance(workdir, str) and workdir:
        command = f"cd {shlex.quote(workdir)} && {command}"
    return command


def missing_input(names: Iterable[str], tool_input: Any, resources: ToolResources | None,
                  canonical: frozenset[str] | None = None) -> str | None:
    """What a built-in call lacks for the rules to judge it, or ``None`` when complete.

    A ``bash`` call needs a command (``resources.command``, or a ``command``/``cmd`` string
    or argv list in the input); a ``read``/``write``/``edit`` call (``apply_patch``
    included) needs a path. Searches default to the workspace root, so they are never
    incomplete.

    ``canonical``: the names already mapped to common names (computed when ``None``).

    Returns:
        A phrase such as ``"the bash call's input has no `command` string"``.
    """
    if canonical is None:
        canonical = frozenset(canonical_tool(n) for n in names)
    data: Mapping[str, Any] = tool_input if type(tool_input) is dict or isinstance(tool_input, Mapping) else {}
    if "bash" in canonical:
        if resources is not None and resources.command is not None:
            return None
        if _command(data) is not None:
            return None
        keys = ", ".join(f"`{k}`" for k in sorted(map(str, data))) or "no keys"
        return f"the bash call's input has no `command` string (it has {keys}), so what it runs is unknown"
    kind = next((k for k in ("edit", "write", "read") if k in canonical), None)
    if kind is not None and not canonical & {"grep", "glob"}:
        if resources is not None and resources.paths:
            return None
        keys = ", ".join(f"`{k}`" for k in sorted(map(str, data))) or "no keys"
        return f"the {kind} call's input names no file (it has {keys}), so what it touches is unknown"
    return None


_KINDS: Final[dict[type, str]] = {list: "an array", tuple: "an array", dict: "an object", bool: "a boolean",
                                  int: "a number", float: "a number", bytes: "bytes"}


def malformed_path(names: Iterable[str], canonical: frozenset[str], tool_input: Any) -> str | None:
    """A path key of a built-in call's input holding something other than a string
    (``{"file_path": [".env"]}``), or ``None``.

    An extractor turning it into text (``"['.env']"``) would have the rules judge a path
    the call never names; the caller drops such resources and treats the call as
    incomplete instead (asked about when deny or ask rules apply; a search searches the
    workspace root).

    Returns:
        A phrase such as ``"the read call's `file_path` is an array, not a path string..."``.
    """
    if not isinstance(tool_input, Mapping) or "apply_patch" in names:
        return None
    tool: str | None
    keys: tuple[str, ...]
    if canonical & {"grep", "glob"}:
        tool, keys = ("grep" if "grep" in canonical else "glob"), ("path", "paths")
    else:
        tool = next((k for k in ("edit", "write", "read") if k in canonical), None)
        keys = PATH_KEYS
    if tool is None:
        return None
    for key in keys:
        value = tool_input.get(key)
        if value is None or isinstance(value, str):
            continue
        if key == "paths" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            continue
        kind = _KINDS.get(type(value), f"a {type(value).__name__}")
        return f"the {tool} call's `{key}` is {kind}, not a path string, so what it touches is unknown"
    return None


def _patch_paths(tool_input: Any) -> tuple[str, ...]:
    if isinstance(tool_input, Mapping):
        text = tool_input.get("input") or tool_input.get("patch") or ""
    else:
        text = tool_input
    if not isinstance(text, str):
        return ()
    return tuple((m.group(1) or m.group(2)) for m in _PATCH_FILE.finditer(text))


def _glob_root(path: str, pattern: object) -> str:
    if not isinstance(pattern, str) or not pattern:
        return path
    literal: list[str] = []
    parts = pattern.split("/")
    for part in parts[:-1]:
        if _MAGIC.search(part):
            break
        literal.append(part)
    prefix = "/".join(literal)
    if pattern.startswith("/"):
        return prefix or "/"
    return posixpath.join(path, prefix) if prefix else path


def _schema(*keys: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": "string"} for k in keys}}


def _extractor(name: str) -> Callable[[Mapping[str, Any]], ToolResources]:
    def extract(data: Mapping[str, Any]) -> ToolResources:
        return baseline_resources([name], data) or ToolResources()

    return extract


BASELINE_BUILTINS: Final[tuple[BuiltinTool, ...]] = tuple(
    BuiltinTool(name=name, native_name=name, kind=kind, description=description, input_schema=schema,
                resources=_extractor(name))
    for name, kind, description, schema in (
        ("read", ToolKind.READ_ONLY, "Read a file.", _schema("file_path", "path")),
        ("write", ToolKind.EDIT, "Write a file.", _schema("file_path", "path", "content")),
        ("edit", ToolKind.EDIT, "Edit a file.", _schema("file_path", "path")),
        ("bash", ToolKind.BASH, "Run a shell command.", _schema("command")),
        ("grep", ToolKind.READ_ONLY, "Search file contents.", _schema("pattern", "path")),
        ("glob", ToolKind.READ_ONLY, "Find files by name.", _schema("pattern", "path")),
        ("webSearch", ToolKind.READ_ONLY, "Search the web.", _schema("query")),
    )
)
"""Built-in declarations with the baseline extractors, used by ``harness rules check``
when no ``--harness`` is given."""
