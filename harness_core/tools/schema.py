"""Tool input schemas: the JSON Schema subset checked at definition, validation at call time.

A tool's ``input`` is either

* a hand-written JSON Schema object, restricted to the subset every harness runtime
  understands (:data:`SUPPORTED_KEYWORDS`), checked recursively when the tool is defined
  (unsupported keywords, malformed values, contradictory bounds such as ``minimum`` >
  ``maximum``, and ``required`` names missing from ``properties`` are refused, naming
  their location), or
* a pydantic model class, the Python counterpart of a Standard Schema that exports JSON
  Schema. The subset restriction does **not** apply to it: pydantic validates the
  arguments in the host, and runtimes get pydantic's export, made self-contained. Every
  ``$ref`` is inlined and ``$defs`` dropped (so is OpenAPI's ``discriminator``
  annotation, whose ``mapping`` points into ``$defs``); a recursive model cannot be
  inlined and is refused. Otherwise the export is kept as pydantic produces it, so it may
  contain ``anyOf`` (``Optional`` and unions), ``oneOf`` (discriminated unions),
  ``pattern``, ``format``, ``default``, ``prefixItems`` (tuples), ``exclusiveMinimum`` /
  ``exclusiveMaximum``, ``multipleOf`` and ``additionalProperties`` given a schema
  (``dict[str, X]``): keywords the target runtimes' tool definitions accept. Validation
  returns a model instance.

Validation of JSON Schemas is delegated to :mod:`jsonschema` (Draft 2020-12); this module
only enforces the subset and the Python pitfalls:

* booleans are not integers or numbers (``True`` fails ``{"type": "integer"}``);
* ``enum`` and ``const`` compare JSON values, not Python values: ``True`` does not match
  ``1`` and ``1`` does not match ``True``. Numbers compare mathematically, as JSON Schema
  specifies, so ``1.0`` matches ``1`` (and is accepted by ``"type": "integer"``; the
  validated value is returned unchanged, a ``float``);
* arguments given as a JSON string are decoded exactly once: a JSON string whose value
  is itself JSON text stays a string (and fails an object schema);
* pydantic models validate in strict JSON mode (``true`` is not ``1``, ``"1"`` is not
  ``1``), unless the model sets ``model_config["strict"]`` itself, which is then obeyed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, TypeGuard

import jsonschema
import pydantic
from jsonschema import Draft202012Validator

from harness_core.errors import ToolDefinitionError, ToolInputError
from harness_core.tools.json_values import check_json_value, parse_arguments

__all__ = [
    "SUPPORTED_KEYWORDS",
    "JsonSchema",
    "ToolInputSchema",
    "check_schema_subset",
    "compile_input_schema",
    "decode_arguments",
    "inline_refs",
]

JsonSchema = dict[str, Any]
"""A JSON Schema document as plain JSON data."""

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
_EMPTY_OBJECT_SCHEMA: Final[JsonSchema] = {"type": "object", "properties": {}}


def _is_model_class(value: object) -> TypeGuard[type[pydantic.BaseModel]]:
    return isinstance(value, type) and issubclass(value, pydantic.BaseModel)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_schema_subset(schema: object, location: str = "input") -> None:
    """Check that ``schema`` uses only :data:`SUPPORTED_KEYWORDS`, recursively.

    Args:
        schema: the JSON Schema node to check.
        location: a dotted path naming the node in error messages, e.g.
            ``"input.properties.city"``.

    Besides the keywords, it refuses what can never validate or never be described:
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


_SCHEMA_MAPS: Final[frozenset[str]] = frozenset({"properties", "patternProperties", "dependentSchemas"})
"""Keywords whose value maps names (not keywords) to schemas."""
_DATA_KEYWORDS: Final[frozenset[str]] = frozenset({"default", "examples", "const", "enum"})
"""Keywords whose value is JSON data, never a schema (copied untouched)."""
_DROPPED_KEYWORDS: Final[frozenset[str]] = frozenset({"$defs", "definitions", "discriminator"})
"""Dropped from pydantic exports once ``$ref`` is inlined: the definitions, and OpenAPI's
``discriminator`` annotation, whose ``mapping`` points into ``$defs``."""


class _RecursiveSchemaError(ToolDefinitionError):
    """Internal: a ``$ref`` leads back to a schema it is part of."""


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
            raise _RecursiveSchemaError(f"{where}: {ref!r} refers back to a schema that contains it")
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


def inline_refs(exported: Mapping[str, Any], location: str = "input") -> JsonSchema:
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
    copied: JsonSchema = json.loads(json.dumps(result))
    return copied


def decode_arguments(tool_name: str, arguments: object) -> object:
    """Decode tool-call arguments given as a JSON string, once.

    ``None``, JSON ``null`` and an empty or blank string mean "no arguments" and become
    ``{}``; ``NaN``/``Infinity`` and nesting deeper than
    :data:`~harness_core.tools.json_values.MAX_DEPTH` are refused. A
    ``str`` (or UTF-8 ``bytes``) is parsed as JSON exactly once: a JSON string that itself
    contains JSON is not decoded again. A mapping that is not a ``dict`` is copied into one
    (JSON Schema validation treats only ``dict`` as an object). Anything else is returned
    unchanged.

    Raises:
        ToolInputError: when a string is not valid JSON (path ``$``), or a non-finite
            number or too deep nesting (its path).
    """
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        return parse_arguments(tool_name, arguments)
    check_json_value(tool_name, arguments)
    if isinstance(arguments, Mapping) and not isinstance(arguments, dict):
        return dict(arguments)
    return arguments


def _json_path(path: Any) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class ToolInputSchema:
    """A compiled tool input schema: the exported JSON Schema plus a validator.

    Build one with :func:`compile_input_schema`. ``json_schema`` is what runtimes receive;
    :meth:`validate` checks call arguments.
    """

    __slots__ = ("_strict", "_validator", "json_schema", "model")

    def __init__(self, json_schema: JsonSchema, model: type[pydantic.BaseModel] | None) -> None:
        self.json_schema: JsonSchema = json_schema
        self.model: type[pydantic.BaseModel] | None = model
        self._validator = None if model is not None else Draft202012Validator(json_schema)
        # Strict JSON mode unless the model chose its own strictness explicitly.
        self._strict: bool | None = None if model is None or "strict" in model.model_config else True

    def validate(self, tool_name: str, arguments: object) -> Any:
        """Validate call arguments.

        Args:
            tool_name: used in error messages.
            arguments: a mapping, or a JSON string decoded once (see :func:`decode_arguments`).

        Returns:
            The validated arguments: a ``dict`` for JSON Schemas, a model instance for
            pydantic models.

        Raises:
            ToolInputError: listing every problem with its JSON path.
        """
        value = decode_arguments(tool_name, arguments)
        if self.model is not None:
            try:
                text = json.dumps(value, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise ToolInputError(tool_name, [("$", f"arguments are not JSON data: {exc}")]) from None
            try:
                # Strict JSON mode keeps JSON semantics: true is not 1, "1" is not 1.
                return self.model.model_validate_json(text, strict=self._strict)
            except pydantic.ValidationError as exc:
                problems = [
                    (_json_path(err["loc"]), err["msg"]) for err in exc.errors(include_url=False)
                ]
                raise ToolInputError(tool_name, problems) from None
        assert self._validator is not None
        errors = list(self._validator.iter_errors(value))
        if errors:
            errors.sort(key=lambda e: (e.json_path, e.message))
            raise ToolInputError(tool_name, [(e.json_path, e.message) for e in errors])
        return value


def compile_input_schema(tool_name: str, input: object) -> ToolInputSchema:
    """Check a tool's ``input`` option and compile it.

    Args:
        tool_name: used in error messages.
        input: a JSON Schema mapping (restricted to the subset) or a pydantic model class.

    Returns:
        The compiled :class:`ToolInputSchema`.

    Raises:
        ToolDefinitionError: the schema uses an unsupported keyword (naming its location)
            or breaks a subset rule, is not an object schema, is not valid JSON Schema; a
            pydantic model exports a ``$ref`` that does not resolve, is recursive, or does
            not export an object schema.
    """
    if _is_model_class(input):
        try:
            exported = input.model_json_schema()
        except Exception as exc:  # pydantic raises user errors, but also KeyError on bad refs
            raise ToolDefinitionError(
                f"tool {tool_name!r}: input model {input.__name__} cannot export JSON Schema: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        try:
            exported = inline_refs(exported)
        except _RecursiveSchemaError as exc:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: input model {input.__name__} is recursive ({exc}); runtimes get a "
                "self-contained schema with every $ref inlined, which a recursive model cannot have. Bound the "
                "nesting with separate models per level, or take the nested part as JSON text"
            ) from None
        except ToolDefinitionError as exc:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: the JSON Schema exported by {input.__name__} is not self-contained: {exc}"
            ) from None
        if exported.get("type") != "object":
            raise ToolDefinitionError(
                f"tool {tool_name!r}: input model {input.__name__} must export an object schema "
                f"(tool arguments are always an object), got type {exported.get('type')!r}"
            )
        exported.setdefault("properties", {})
        return ToolInputSchema(exported, input)
    if not isinstance(input, Mapping):
        raise ToolDefinitionError(
            f"tool {tool_name!r}: input must be a JSON Schema object or a pydantic model class, "
            f"got {type(input).__name__}"
        )
    try:
        # A deep copy as plain JSON data: later edits to the caller's dict change nothing.
        schema: JsonSchema = json.loads(json.dumps(input, allow_nan=False)) if input else dict(_EMPTY_OBJECT_SCHEMA)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: input schema is not JSON data: {exc}") from None
    if schema.get("type") == "object":
        # Runtimes get "properties" at the top even when empty; check required against it.
        schema.setdefault("properties", {})
    try:
        check_schema_subset(schema)
    except ToolDefinitionError as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: {exc}") from None
    if schema.get("type") != "object":
        raise ToolDefinitionError(
            f"tool {tool_name!r}: input.type must be 'object' (tool arguments are always an object), "
            f"got {schema.get('type')!r}"
        )
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: input is not a valid JSON Schema: {exc.message}") from None
    return ToolInputSchema(schema, None)
