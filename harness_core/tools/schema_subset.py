"""The JSON Schema subset a hand-written tool input schema may use, checked at definition.

:data:`SUPPORTED_KEYWORDS` is the subset every harness runtime understands;
:func:`check_schema_subset` enforces it recursively and refuses schemas that can never
validate (contradictory bounds) or that require an undescribed property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core.errors import ToolDefinitionError

__all__ = ["SUPPORTED_KEYWORDS", "check_schema_subset"]

SUPPORTED_KEYWORDS: Final[frozenset[str]] = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "title",
        "description",
    }
)
"""The JSON Schema keywords a tool input schema may use."""

_JSON_TYPES: Final[frozenset[str]] = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
_NON_NEGATIVE_INT_KEYWORDS: Final[tuple[str, ...]] = ("minLength", "maxLength", "minItems", "maxItems")
_BOUNDS: Final[tuple[tuple[str, str], ...]] = (
    ("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"),
)
def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_schema_subset(schema: object, location: str = "input") -> None:
    """Check that ``schema`` uses only :data:`SUPPORTED_KEYWORDS`, recursively.

    Args:
        schema: the JSON Schema node to check.
        location: a dotted path naming the node in error messages, e.g.
            ``"input.properties.city"``.

    Every schema it accepts is valid against the Draft 2020-12 meta-schema (so tool
    definition needs no jsonschema): each keyword's value has the meta-schema's shape, a
    ``type`` list and ``required`` have no duplicates. Besides the keywords, it refuses what
    can never validate or never be described:
    a lower bound above its upper bound (``minimum`` > ``maximum``, ``minLength`` >
    ``maxLength``, ``minItems`` > ``maxItems``), and a ``required`` name missing from
    ``properties`` when the node has ``properties`` (whatever ``additionalProperties``
    says: the model would be required to send an argument nobody describes to it).

    Raises:
        ToolDefinitionError: naming the location of the first unsupported keyword,
            malformed value, contradictory bounds or undescribed required property.
    """
    if not isinstance(schema, Mapping):
        raise ToolDefinitionError(f"{location}: a schema must be an object, got {type(schema).__name__}")
    for key, value in schema.items():
        where = f"{location}.{key}"
        if key not in SUPPORTED_KEYWORDS:
            allowed = ", ".join(sorted(SUPPORTED_KEYWORDS))
            raise ToolDefinitionError(
                f"{where}: keyword {key!r} is not supported in tool input schemas (allowed: {allowed})"
            )
        if key == "type":
            types = value if isinstance(value, list) else [value]
            if not types or not all(isinstance(t, str) and t in _JSON_TYPES for t in types):
                raise ToolDefinitionError(
                    f"{where}: must be one of {sorted(_JSON_TYPES)} or a non-empty list of them, got {value!r}"
                )
            if len(set(types)) != len(types):
                raise ToolDefinitionError(f"{where}: lists a type twice, got {value!r}")
        elif key == "properties":
            if not isinstance(value, Mapping):
                raise ToolDefinitionError(f"{where}: must be an object mapping names to schemas")
            for name, sub in value.items():
                check_schema_subset(sub, f"{where}.{name}")
        elif key in ("items", "additionalProperties"):
            if not (key == "additionalProperties" and isinstance(value, bool)):
                check_schema_subset(value, where)
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise ToolDefinitionError(f"{where}: must be a list of property names")
            if len(set(value)) != len(value):
                raise ToolDefinitionError(f"{where}: names a property twice, got {value!r}")
            props = schema.get("properties")
            if isinstance(props, Mapping):
                # A required property nobody describes is a definition bug (a typo, or a
                # property removed from "properties"): the model is never told about it.
                missing = [n for n in value if n not in props]
                if missing:
                    raise ToolDefinitionError(
                        f"{where}: {', '.join(map(repr, missing))} {'is' if len(missing) == 1 else 'are'} required "
                        f"but not described in {location}.properties (properties: "
                        f"{', '.join(map(repr, props)) or 'none'})"
                    )
        elif key == "enum":
            if not isinstance(value, list) or not value:
                raise ToolDefinitionError(f"{where}: must be a non-empty list")
        elif key in _NON_NEGATIVE_INT_KEYWORDS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ToolDefinitionError(f"{where}: must be a non-negative integer, got {value!r}")
        elif key in ("minimum", "maximum"):
            if not _is_number(value):
                raise ToolDefinitionError(f"{where}: must be a number, got {value!r}")
        elif key in ("title", "description") and not isinstance(value, str):
            raise ToolDefinitionError(f"{where}: must be a string")
    for low, high in _BOUNDS:
        if low in schema and high in schema and schema[low] > schema[high]:
            raise ToolDefinitionError(
                f"{location}: {low} {schema[low]!r} is greater than {high} {schema[high]!r}, so no value is valid"
            )
