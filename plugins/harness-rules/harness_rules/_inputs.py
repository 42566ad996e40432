"""Checking a tool input given on the command line before the rules judge it.

``harness rules check TOOL INPUT_JSON`` decides what the call would touch from its input;
an input the tool would reject (a misspelt key, a missing command) would otherwise be
judged as touching nothing. :func:`input_problem` says what is wrong, naming the key:

* a built-in declared by an adapter (``--harness``) is checked against its input schema
  (JSON Schema, Draft 2020-12) when it declares properties;
* otherwise, common and native built-in names are checked against the shapes the baseline
  extractors read (:mod:`harness_rules._extract`): ``bash`` needs a ``command`` (or
  Codex's ``cmd``) string or argv list, ``read``/``write``/``edit`` a path key
  (``file_path``, ``path``, ``notebook_path``, ``filePath``), ``apply_patch`` its patch
  text (``input`` or ``patch``), ``grep``/``glob`` (``Grep``, ``Glob``, pi's ``find``) a
  ``pattern`` string.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from ._extract import PATH_KEYS
from ._names import canonical_tool

__all__ = ["input_problem"]

_NO_PATTERN: Final = frozenset({"LS", "ls"})  # directory listings take no pattern


def input_problem(tool: str, tool_input: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> str | None:
    """What is wrong with ``tool_input`` for ``tool``, or ``None`` when it looks right.

    Args:
        tool: the tool name as given (common or native).
        tool_input: the input object.
        schema: the tool's declared JSON Schema, when an adapter declares one; used when it
            lists properties, else the baseline shapes apply.

    Returns:
        A message naming the offending key, e.g. ``"the bash input has no `command` key
        (a string); it has `commmand` - did you mean `command`?"``.
    """
    if schema is not None and schema.get("properties"):
        return _schema_problem(tool, tool_input, schema)
    return _baseline_problem(tool, tool_input)


def _keys(data: Mapping[str, Any]) -> str:
    return ", ".join(f"`{k}`" for k in data) or "no keys"


def _missing(tool: str, data: Mapping[str, Any], wanted: Sequence[str], what: str) -> str:
    names = " or ".join(f"`{k}`" for k in wanted)
    message = f"the {tool} input has no {names} key ({what}); it has {_keys(data)}"
    for key in data:
        close = difflib.get_close_matches(str(key), wanted, n=1, cutoff=0.6)
        if close:
            return f"{message} - did you mean `{close[0]}` instead of `{key}`?"
    return message


def _baseline_problem(tool: str, data: Mapping[str, Any]) -> str | None:
    canonical = canonical_tool(tool)
    if canonical == "bash":
        key = next((k for k in ("command", "cmd") if k in data), None)
        if key is None:
            return _missing(tool, data, ("command", "cmd"), "the shell command, a string")
        value = data[key]
        argv = isinstance(value, list) and all(isinstance(part, str) for part in value)
        if not isinstance(value, str) and not argv:
            return f"the {tool} input's `{key}` must be a string (or a list of strings), not {type(value).__name__}"
        return None
    if tool == "apply_patch":
        key = next((k for k in ("input", "patch") if k in data), None)
        if key is None:
            return _missing(tool, data, ("input", "patch"), "the patch text, a string")
        return None if isinstance(data[key], str) else f"the {tool} input's `{key}` must be a string"
    if canonical in ("read", "write", "edit"):
        key = next((k for k in PATH_KEYS if k in data), None)
        if key is None:
            return _missing(tool, data, PATH_KEYS, "the file, a string")
        return None if isinstance(data[key], str) else f"the {tool} input's `{key}` must be a string"
    if canonical in ("grep", "glob") and tool not in _NO_PATTERN:
        if "pattern" not in data:
            return _missing(tool, data, ("pattern",), "a string")
        if not isinstance(data["pattern"], str):
            return f"the {tool} input's `pattern` must be a string"
        path = data.get("path")
        if path is not None and not isinstance(path, str):
            return f"the {tool} input's `path` must be a string"
    return None


def _schema_problem(tool: str, data: Mapping[str, Any], schema: Mapping[str, Any]) -> str | None:
    try:
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: (e.json_path, e.message))
    except SchemaError:  # an adapter's informational schema we cannot use: baseline shapes
        return _baseline_problem(tool, data)
    if not errors:
        return None
    properties = [str(k) for k in schema.get("properties", {})]
    problems: list[str] = []
    for error in errors:
        problems.append(f"{error.json_path}: {error.message}")
    message = f"the {tool} input does not match its schema: " + "; ".join(problems)
    unknown = [str(k) for k in data if str(k) not in properties]
    for key in unknown:
        close = difflib.get_close_matches(key, properties, n=1, cutoff=0.6)
        if close:
            return f"{message} (unknown key `{key}`: did you mean `{close[0]}`?)"
    if unknown:
        return f"{message} (unknown key{'s' if len(unknown) > 1 else ''} {', '.join(f'`{k}`' for k in unknown)})"
    return message
