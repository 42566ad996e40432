"""Tool-call arguments as strict JSON data: finite numbers, bounded nesting, ``null`` as ``{}``.

RFC 8259 JSON has no ``NaN`` or ``Infinity``; Python's :mod:`json` accepts them and
JSON-Schema ``minimum`` / ``maximum`` comparisons with ``NaN`` are always false, so a
non-finite number would pass any bound. :func:`parse_arguments` refuses them in JSON text
and :func:`check_json_value` refuses them in decoded mappings. Nesting deeper than
:data:`MAX_DEPTH` containers is refused with a :class:`~harness_core.errors.ToolInputError`
instead of the ``RecursionError`` a recursive parser or validator would raise. Both walk
iteratively, so no input can exhaust the Python stack here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from harness_core.errors import ToolInputError

__all__ = ["MAX_DEPTH", "check_json_value", "parse_arguments"]

MAX_DEPTH: Final = 200
"""The deepest nesting of objects and arrays accepted in tool-call arguments."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _text_depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text``, outside strings (an upper bound is enough)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def parse_arguments(tool_name: str, text: str | bytes | bytearray) -> object:
    """Decode JSON ``text`` strictly: no ``NaN``/``Infinity``, nesting at most :data:`MAX_DEPTH`;
    JSON ``null`` becomes ``{}`` (no arguments).

    Raises:
        ToolInputError: not valid JSON, a non-finite number, or nesting too deep (path ``$``).
    """
    decoded = text if isinstance(text, str) else bytes(text).decode("utf-8", errors="replace")
    if _text_depth(decoded) > MAX_DEPTH:
        raise ToolInputError(tool_name, [("$", f"arguments are nested deeper than {MAX_DEPTH} levels")])
    try:
        value = json.loads(decoded, parse_constant=_reject_constant)
    except ValueError as exc:
        raise ToolInputError(tool_name, [("$", f"arguments are not valid JSON: {exc}")]) from None
    except RecursionError:
        raise ToolInputError(tool_name, [("$", "arguments are nested too deeply")]) from None
    return {} if value is None else value


def check_json_value(tool_name: str, value: object) -> None:
    """Refuse non-finite floats and nesting deeper than :data:`MAX_DEPTH` in decoded ``value``.

    Raises:
        ToolInputError: naming the JSON path of the first problem found.
    """
    stack: list[tuple[object, str, int]] = [(value, "$", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ToolInputError(tool_name, [(path, f"{item!r} is not a JSON number (NaN and Infinity are refused)")])
        if isinstance(item, Mapping | list | tuple):
            if depth >= MAX_DEPTH:
                raise ToolInputError(tool_name, [(path, f"arguments are nested deeper than {MAX_DEPTH} levels")])
            if isinstance(item, Mapping):
                stack.extend((v, f"{path}.{k}", depth + 1) for k, v in item.items())
            else:
                stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
