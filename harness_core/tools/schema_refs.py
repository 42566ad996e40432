"""Inlining the local ``$ref`` of a JSON Schema (a pydantic export) into a self-contained
schema, as runtimes need it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from harness_core.errors import ToolDefinitionError

__all__ = ["RecursiveSchemaError", "inline_refs"]

_SCHEMA_MAPS: Final[frozenset[str]] = frozenset({"properties", "patternProperties", "dependentSchemas"})
"""Keywords whose value maps names (not keywords) to schemas."""
_DATA_KEYWORDS: Final[frozenset[str]] = frozenset({"default", "examples", "const", "enum"})
"""Keywords whose value is JSON data, never a schema (copied untouched)."""
_DROPPED_KEYWORDS: Final[frozenset[str]] = frozenset({"$defs", "definitions", "discriminator"})
"""Dropped from pydantic exports once ``$ref`` is inlined: the definitions, and OpenAPI's
``discriminator`` annotation, whose ``mapping`` points into ``$defs``."""


class RecursiveSchemaError(ToolDefinitionError):
    """A ``$ref`` leads back to a schema it is part of (the schema cannot be inlined)."""


def _resolve_pointer(document: Mapping[str, Any], ref: str, location: str) -> Any:
    """The node a local JSON pointer (``#/$defs/X``) names in ``document``.

    Raises:
        ToolDefinitionError: the reference points outside the document or does not resolve.
    """
    if ref == "#":
        return document
    if not ref.startswith("#/"):
        raise ToolDefinitionError(f"{location}: {ref!r} points outside the schema")
    target: Any = document
    for raw in ref[2:].split("/"):
        segment = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, Mapping) and segment in target:
            target = target[segment]
        elif isinstance(target, list) and segment.isdigit() and int(segment) < len(target):
            target = target[int(segment)]
        else:
            raise ToolDefinitionError(f"{location}: {ref!r} does not resolve inside the schema")
    return target


def _inline_node(node: Any, document: Mapping[str, Any], location: str, expanding: tuple[str, ...]) -> Any:
    """``node`` (a schema) with every ``$ref`` replaced by a copy of its target, recursively."""
    if not isinstance(node, Mapping):
        return _inline_value(node, document, location, expanding)
    ref = node.get("$ref")
    if ref is not None:
        where = f"{location}.$ref"
        if not isinstance(ref, str):
            raise ToolDefinitionError(f"{where}: must be a string, got {ref!r}")
        if ref in expanding:
            raise RecursiveSchemaError(f"{where}: {ref!r} refers back to a schema that contains it")
        target = _resolve_pointer(document, ref, where)
        if not isinstance(target, Mapping):
            raise ToolDefinitionError(f"{where}: {ref!r} does not point at a schema object")
        resolved = _inline_node(target, document, location, (*expanding, ref))
        siblings = _inline_node({k: v for k, v in node.items() if k != "$ref"}, document, location, expanding)
        return {**resolved, **siblings}
    out: dict[str, Any] = {}
    for key, value in node.items():
        where = f"{location}.{key}"
        if key in _DROPPED_KEYWORDS:
            continue
        if key in _DATA_KEYWORDS:
            out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: _inline_node(sub, document, f"{where}.{name}", expanding) for name, sub in value.items()}
        else:
            out[key] = _inline_value(value, document, where, expanding)
    return out


def _inline_value(value: Any, document: Mapping[str, Any], location: str, expanding: tuple[str, ...]) -> Any:
    if isinstance(value, Mapping):
        return _inline_node(value, document, location, expanding)
    if isinstance(value, list):
        return [_inline_value(item, document, f"{location}[{index}]", expanding) for index, item in enumerate(value)]
    return value


def inline_refs(exported: Mapping[str, Any], location: str = "input") -> dict[str, Any]:
    """A self-contained copy of a JSON Schema: every local ``$ref`` inlined, ``$defs`` dropped.

    ``{"$ref": "#/$defs/X", "description": "..."}`` becomes X's schema with the
    ``description`` on top (siblings win). OpenAPI's ``discriminator`` annotation is
    dropped with the definitions its ``mapping`` points at. Values of ``default``,
    ``examples``, ``const`` and ``enum`` are data and are copied untouched.

    Args:
        exported: the schema (a pydantic model's ``model_json_schema()``, typically).
        location: the root's name in error messages.

    Returns:
        A new schema without ``$ref``, ``$defs`` or ``discriminator``.

    Raises:
        ToolDefinitionError: a reference points outside the document, does not resolve
            or is not a schema object (the message names its location); a subclass is
            raised for a recursive schema (a reference back into a schema containing
            it), which cannot be inlined.
    """
    result = _inline_node(exported, exported, location, ())
    # Shared definitions were inlined as the same objects: give each place its own copy.
    copied: dict[str, Any] = json.loads(json.dumps(result))
    return copied
