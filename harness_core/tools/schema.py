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

Validation of JSON Schemas is delegated to :mod:`jsonschema` (Draft 2020-12), imported when a
tool first validates arguments it cannot accept at once, not when it is defined: defining a
tool from a hand-written schema needs only :func:`check_schema_subset`, whose rules make every
schema it accepts valid against the Draft 2020-12 meta-schema (a test checks this against
jsonschema's ``check_schema``), so tool packs declare their tools at plugin discovery without
loading jsonschema. In front of it, a compiled yes/no check of the subset
(:mod:`harness_core.tools.schema_check`) accepts a valid value without a jsonschema walk; an
invalid one gets jsonschema's error list. This module only enforces the subset and the Python
pitfalls:

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
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeGuard

from harness_core.errors import ToolDefinitionError, ToolInputError
from harness_core.tools.frozen import FrozenJsonObject
from harness_core.tools.json_values import check_json_value, parse_arguments
from harness_core.tools.schema_check import SchemaCheck, schema_checker
from harness_core.tools.schema_refs import RecursiveSchemaError, inline_refs
from harness_core.tools.schema_subset import SUPPORTED_KEYWORDS, check_schema_subset

if TYPE_CHECKING:
    import pydantic
    from jsonschema import Draft202012Validator


def _draft_2020_12() -> type[Draft202012Validator]:
    """jsonschema's Draft 2020-12 validator class, imported on first use (start-up cost)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator

__all__ = [
    "SUPPORTED_KEYWORDS",
    "FrozenJsonObject",
    "JsonSchema",
    "ToolInputSchema",
    "check_schema_subset",
    "compile_input_schema",
    "decode_arguments",
    "inline_refs",
    "is_model_class",
]

JsonSchema = dict[str, Any]
"""A JSON Schema document as JSON data (a compiled tool's is a :class:`FrozenJsonObject`)."""

_EMPTY_OBJECT_SCHEMA: Final[JsonSchema] = {"type": "object", "properties": {}}


def is_model_class(value: object) -> TypeGuard[type[pydantic.BaseModel]]:
    """``value`` is a pydantic model class. pydantic is imported only when ``value`` is a class:
    tools with hand-written schemas (plugin discovery) never load it."""
    if not isinstance(value, type):
        return False
    from pydantic import BaseModel

    return issubclass(value, BaseModel)


def _validation_error() -> type[pydantic.ValidationError]:
    """pydantic's ``ValidationError``; called only in an ``except`` clause, i.e. once a model
    (so pydantic) is in use."""
    from pydantic import ValidationError

    return ValidationError


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
    """A compiled tool input schema: the exported JSON Schema plus a validator, immutable.

    Build one with :func:`compile_input_schema`. ``json_schema`` is what runtimes receive: a
    deep-frozen :class:`~harness_core.tools.frozen.FrozenJsonObject` (a ``dict`` whose
    mutating methods raise ``TypeError``; ``.to_json()`` gives a mutable copy), and the
    validator of :meth:`validate` is built from that same object, so what a runtime is
    offered is exactly what is enforced. Attributes cannot be reassigned
    (``AttributeError``).

    Attributes:
        json_schema: the schema sent to runtimes.
        model: the pydantic model that validates, or ``None`` for a JSON Schema.
    """

    __slots__ = ("_check", "_strict", "_validator", "json_schema", "model")

    json_schema: FrozenJsonObject
    model: type[pydantic.BaseModel] | None
    _validator: Draft202012Validator | None
    _check: SchemaCheck | None
    _strict: bool | None

    def __init__(self, json_schema: Mapping[str, Any], model: type[pydantic.BaseModel] | None) -> None:
        frozen = FrozenJsonObject(json_schema)
        set_slot = object.__setattr__
        set_slot(self, "json_schema", frozen)
        set_slot(self, "model", model)
        set_slot(self, "_validator", None)  # a JSON Schema's validator is built on first use
        # The compiled yes/no check of the subset (schema_check.py): valid values skip jsonschema.
        set_slot(self, "_check", None if model is not None else schema_checker(frozen))
        # Strict JSON mode unless the model chose its own strictness explicitly.
        set_slot(self, "_strict", None if model is None or "strict" in model.model_config else True)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"ToolInputSchema is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"ToolInputSchema is immutable: cannot delete {name!r}")

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
            except _validation_error() as exc:
                problems = [
                    (_json_path(err["loc"]), err["msg"]) for err in exc.errors(include_url=False)
                ]
                raise ToolInputError(tool_name, problems) from None
        check = self._check
        if check is not None and check(value):
            return value
        validator = self._validator
        if validator is None:
            # Built once, on the first call that needs it (building it imports jsonschema);
            # the schema is frozen, so building it twice in a race gives two equal validators.
            validator = _draft_2020_12()(self.json_schema)
            object.__setattr__(self, "_validator", validator)
        errors = list(validator.iter_errors(value))
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
    if is_model_class(input):
        try:
            exported = input.model_json_schema()
        except Exception as exc:  # pydantic raises user errors, but also KeyError on bad refs
            raise ToolDefinitionError(
                f"tool {tool_name!r}: input model {input.__name__} cannot export JSON Schema: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        try:
            exported = inline_refs(exported)
        except RecursiveSchemaError as exc:
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
    # No jsonschema check_schema here: within the subset, check_schema_subset already refuses
    # everything the Draft 2020-12 meta-schema refuses (tested), and importing jsonschema would
    # cost every tool pack's plugin discovery more than the rest of the core.
    return ToolInputSchema(schema, None)
