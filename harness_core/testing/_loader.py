"""Load scripts from YAML or JSON files, with errors that name file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness_core.testing._errors import ScriptError
from harness_core.testing._script import Script

__all__ = ["load_script", "parse_script_text"]

_Loc = tuple[str | int, ...]


def load_script(path: str | os.PathLike[str]) -> Script:
    """Read a script file (``.yaml``, ``.yml`` or ``.json``; other suffixes parse as YAML).

    The document is either a mapping with the :class:`Script` fields or a bare
    list of turns. Raises :class:`ScriptError` naming the file, the line and
    column (1-based) and what is wrong, for unreadable files, syntax errors and
    schema errors alike.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ScriptError(
            f"cannot read script: {error.strerror or error}", path=str(file)
        ) from None
    return parse_script_text(text, source=str(file), is_json=file.suffix.lower() == ".json")


def parse_script_text(text: str, *, source: str = "<script>", is_json: bool = False) -> Script:
    """Parse script text; ``source`` names it in errors. See :func:`load_script`."""
    node, data = _compose(text, source, is_json)
    prefix: _Loc = ()
    if isinstance(data, list):
        data = {"turns": data}
        prefix = ("turns",)
    elif not isinstance(data, Mapping):
        line, column = _mark(node)
        raise ScriptError(
            "a script is a mapping with a 'turns' list, or a list of turns",
            path=source,
            line=line,
            column=column,
        )
    marks: dict[_Loc, tuple[int, int]] = {}
    try:
        _collect_marks(node, prefix, marks)
    except _DuplicateKey as duplicate:
        raise ScriptError(
            duplicate.message, path=source, line=duplicate.line, column=duplicate.column
        ) from None
    try:
        return Script.model_validate(data)
    except ValidationError as error:
        raise _located(error, marks, source) from None


def _compose(text: str, source: str, is_json: bool) -> tuple[yaml.Node, Any]:
    """Parse ``text`` into its YAML node tree (for positions) and its Python data."""
    if is_json:
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            raise ScriptError(
                f"invalid JSON: {error.msg}", path=source, line=error.lineno, column=error.colno
            ) from None
    try:
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = " ".join(p for p in (error.context, error.problem) if p) or "invalid YAML"
        raise ScriptError(
            f"invalid {'JSON' if is_json else 'YAML'}: {problem}",
            path=source,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as error:
        raise ScriptError(f"invalid YAML: {error}", path=source) from None
    if node is None:
        raise ScriptError("the script is empty", path=source, line=1, column=1)
    return node, data


def _mark(node: yaml.Node) -> tuple[int, int]:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


def _collect_marks(node: yaml.Node, loc: _Loc, marks: dict[_Loc, tuple[int, int]]) -> None:
    """Map every path in the document to its position; a keyed value maps to its key."""
    marks.setdefault(loc, _mark(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = str(key_node.value)
                if key in seen:
                    line, column = _mark(key_node)
                    raise _DuplicateKey(f"{_dotted((*loc, key))}: duplicate key", line, column)
                seen.add(key)
                marks[(*loc, key)] = _mark(key_node)
                _collect_marks(value_node, (*loc, key), marks)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_marks(item, (*loc, index), marks)


class _DuplicateKey(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def _located(
    error: ValidationError, marks: Mapping[_Loc, tuple[int, int]], source: str
) -> ScriptError:
    first = error.errors()[0]
    loc: _Loc = tuple(first["loc"])
    found: _Loc = ()
    for size in range(len(loc), -1, -1):
        if loc[:size] in marks:
            found = loc[:size]
            break
    line, column = marks.get(found, (None, None))
    shown = found
    if first["type"] in ("missing", "extra_forbidden") and len(loc) > len(found):
        shown = loc[: len(found) + 1]
    where = _dotted(shown or loc) or "script"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    more = len(error.errors()) - 1
    suffix = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
    return ScriptError(f"{where}: {message}{suffix}", path=source, line=line, column=column)


def _dotted(loc: _Loc) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = part
    return text
