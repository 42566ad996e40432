"""Tool input schemas: the JSON Schema subset checked at definition, validation at call time.

A tool's ``input`` is either

* a JSON Schema object restricted to the subset every harness runtime understands
  (:data:`SUPPORTED_KEYWORDS`), checked recursively when the tool is defined, or
* a pydantic model class, the Python counterpart of a Standard Schema that exports JSON
  Schema: its exported schema must be self-contained (every ``$ref`` resolves inside the
  document) and validation returns a model instance.

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

from .errors import ToolDefinitionError, ToolInputError

__all__ = [
    "SUPPORTED_KEYWORDS",
    "JsonSchema",
    "ToolInputSchema",
    "check_schema_subset",
    "compile_input_schema",
    "decode_arguments",
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

    Raises:
        ToolDefinitionError: naming the location of the first unsupported keyword or
            malformed value.
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
                missing = [n for n in value if n not in props]
                if missing and schema.get("additionalProperties") is False:
                    raise ToolDefinitionError(
                        f"{where}: names {missing} are not in 'properties' and additionalProperties is false"
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


def _check_refs(node: object, document: Mapping[str, Any], location: str) -> None:
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#/"):
                raise ToolDefinitionError(f"{location}.$ref: {ref!r} points outside the schema")
            target: object = document
            for segment in ref[2:].split("/"):
                segment = segment.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or segment not in target:
                    raise ToolDefinitionError(f"{location}.$ref: {ref!r} does not resolve inside the schema")
                target = target[segment]
        for key, value in node.items():
            _check_refs(value, document, f"{location}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _check_refs(value, document, f"{location}[{index}]")


def _inline_root_ref(exported: JsonSchema) -> JsonSchema:
    """Replace a top-level ``{"$ref": "#/$defs/X", "$defs": ...}`` by X itself.

    pydantic exports a self-referencing model that way; runtimes want ``"type": "object"``
    at the top. ``$defs`` stays in place, so inner references still resolve.
    """
    ref = exported.get("$ref")
    defs = exported.get("$defs")
    if not (isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(defs, Mapping)):
        return exported
    target = defs.get(ref[len("#/$defs/") :])
    if not isinstance(target, Mapping):
        return exported
    rest = {k: v for k, v in exported.items() if k not in ("$ref", "$defs")}
    return {**target, **rest, "$defs": defs}


def decode_arguments(tool_name: str, arguments: object) -> object:
    """Decode tool-call arguments given as a JSON string, once.

    ``None`` and an empty or blank string mean "no arguments" and become ``{}``. A
    ``str`` (or UTF-8 ``bytes``) is parsed as JSON exactly once: a JSON string that itself
    contains JSON is not decoded again. A mapping that is not a ``dict`` is copied into one
    (JSON Schema validation treats only ``dict`` as an object). Anything else is returned
    unchanged.

    Raises:
        ToolInputError: when a string is not valid JSON (path ``$``).
    """
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        try:
            return json.loads(arguments)
        except ValueError as exc:
            raise ToolInputError(tool_name, [("$", f"arguments are not valid JSON: {exc}")]) from None
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
        ToolDefinitionError: the schema uses an unsupported keyword (naming its location),
            is not an object schema, is not valid JSON Schema, or a pydantic model exports
            a ``$ref`` that does not resolve.
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
            _check_refs(exported, exported, "input")
        except ToolDefinitionError as exc:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: the JSON Schema exported by {input.__name__} is not self-contained: {exc}"
            ) from None
        exported = _inline_root_ref(exported)
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
    try:
        check_schema_subset(schema)
    except ToolDefinitionError as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: {exc}") from None
    if schema.get("type") != "object":
        raise ToolDefinitionError(
            f"tool {tool_name!r}: input.type must be 'object' (tool arguments are always an object), "
            f"got {schema.get('type')!r}"
        )
    schema.setdefault("properties", {})
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: input is not a valid JSON Schema: {exc.message}") from None
    return ToolInputSchema(schema, None)
