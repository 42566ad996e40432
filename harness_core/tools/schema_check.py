"""A compiled yes/no check for the tool-schema subset: the fast path of validation.

:func:`schema_checker` compiles a JSON Schema written in the subset of
:data:`~harness_core.tools.schema_subset.SUPPORTED_KEYWORDS` into a function
``check(value) -> bool`` that answers "does ``value`` satisfy the schema?" with Draft
2020-12 semantics, as :mod:`jsonschema` does, in a few closure calls instead of a
validator walk (issue 17: jsonschema's ``iter_errors`` was ~7% of a host call's cost).

It is only ever a fast path in front of :mod:`jsonschema`, never a replacement:

* a schema it does not fully understand compiles to ``None`` (the caller uses
  :mod:`jsonschema` alone): any keyword outside the subset (``$ref``, ``anyOf``,
  ``pattern``, ``format``, ``default``...), a boolean subschema other than
  ``additionalProperties``, a malformed value, or an ``enum`` / ``const`` with a
  non-string value (JSON equality of numbers and booleans is left to :mod:`jsonschema`);
* ``True`` means valid: the caller accepts the value without running :mod:`jsonschema`;
* ``False`` means invalid: the caller runs :mod:`jsonschema` for the error messages (and
  :mod:`jsonschema` stays the authority on the verdict).

Semantics mirrored from jsonschema's Draft 2020-12 type checker and keywords: ``object``
is a ``dict``, ``array`` a ``list``, ``number`` a :class:`numbers.Number` that is not a
``bool``, ``integer`` an ``int`` (not ``bool``) or a ``float`` with an integral value (a
``Decimal`` or other number type is answered False: jsonschema decides);
``minLength``/``maxLength`` count code points; each keyword applies only to instances
of its type. ``tests/core/test_schema_check.py`` checks the verdicts against
:mod:`jsonschema` on a corpus of schemas and values.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["SchemaCheck", "schema_checker"]

SchemaCheck = Callable[[Any], bool]
"""``check(value) -> bool``: whether ``value`` satisfies the compiled schema."""

_IGNORED: Final = frozenset({"title", "description"})
_KNOWN: Final = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
}) | _IGNORED


class _Unsupported(Exception):
    """The schema leaves the subset this module compiles."""


def _is_number(value: Any) -> bool:
    """``int`` or ``float``, not ``bool``. Other :class:`numbers.Number` values (``Decimal``,
    ``complex``: not JSON data) answer False, so jsonschema decides about them."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_other_number(value: Any) -> bool:
    return not isinstance(value, int | float) and isinstance(value, numbers.Number)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


_TYPE_TESTS: Final[dict[str, Callable[[Any], bool]]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "integer": _is_integer,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_checker(schema: object) -> SchemaCheck | None:
    """Compile ``schema`` into a yes/no check, or ``None`` when it leaves the subset.

    Args:
        schema: a JSON Schema object (a mapping), e.g. a tool's ``input_schema``.

    Returns:
        ``check(value) -> bool`` (``True``: valid under Draft 2020-12), or ``None`` when
        the schema uses anything this module does not compile (see the module docs); the
        caller then validates with :mod:`jsonschema` alone.
    """
    try:
        return _compile(schema)
    except (_Unsupported, TypeError, ValueError):
        return None


def _int_bound(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _Unsupported
    return value


def _strings(values: Any) -> frozenset[str]:
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise _Unsupported  # JSON equality of other values is jsonschema's business
    return frozenset(values)


def _compile(schema: object) -> SchemaCheck:
    if not isinstance(schema, Mapping) or not set(schema) <= _KNOWN:
        raise _Unsupported
    checks: list[SchemaCheck] = []
    if "type" in schema:
        named = schema["type"]
        names = named if isinstance(named, list) else [named]
        if not names or not all(isinstance(n, str) and n in _TYPE_TESTS for n in names):
            raise _Unsupported
        tests = tuple(_TYPE_TESTS[n] for n in names)
        checks.append(tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests)))
    if "enum" in schema:
        allowed = _strings(schema["enum"])
        checks.append(lambda v: isinstance(v, str) and v in allowed)
    if "const" in schema:
        const = schema["const"]
        if not isinstance(const, str):
            raise _Unsupported
        checks.append(lambda v: isinstance(v, str) and v == const)
    checks.extend(_string_checks(schema))
    checks.extend(_number_checks(schema))
    checks.extend(_array_checks(schema))
    checks.extend(_object_checks(schema))
    return _all(checks)


def _all(checks: list[SchemaCheck]) -> SchemaCheck:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    frozen = tuple(checks)

    def check(value: Any) -> bool:
        for one in frozen:  # noqa: SIM110 - a loop is cheaper than all() over a generator
            if not one(value):
                return False
        return True

    return check


def _string_checks(schema: Mapping[str, Any]) -> list[SchemaCheck]:
    low = _int_bound(schema["minLength"]) if "minLength" in schema else None
    high = _int_bound(schema["maxLength"]) if "maxLength" in schema else None
    if low is None and high is None:
        return []
    lo, hi = low or 0, high

    def check(value: Any) -> bool:
        if not isinstance(value, str):
            return True
        size = len(value)
        return size >= lo and (hi is None or size <= hi)

    return [check]


def _number_checks(schema: Mapping[str, Any]) -> list[SchemaCheck]:
    if "minimum" not in schema and "maximum" not in schema:
        return []
    low, high = schema.get("minimum"), schema.get("maximum")
    if any(key in schema and not _is_number(schema[key]) for key in ("minimum", "maximum")):
        raise _Unsupported

    def check(value: Any) -> bool:
        if not _is_number(value):
            return not _is_other_number(value)  # another kind of number: jsonschema decides
        return (low is None or value >= low) and (high is None or value <= high)

    return [check]


def _array_checks(schema: Mapping[str, Any]) -> list[SchemaCheck]:
    low = _int_bound(schema["minItems"]) if "minItems" in schema else None
    high = _int_bound(schema["maxItems"]) if "maxItems" in schema else None
    item = _compile(schema["items"]) if "items" in schema else None
    if low is None and high is None and item is None:
        return []
    lo, hi = low or 0, high

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        if len(value) < lo or (hi is not None and len(value) > hi):
            return False
        return item is None or all(item(v) for v in value)

    return [check]


def _object_checks(schema: Mapping[str, Any]) -> list[SchemaCheck]:
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping) or not all(isinstance(k, str) for k in properties):
        raise _Unsupported
    compiled = tuple((name, _compile(sub)) for name, sub in properties.items())
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        raise _Unsupported
    needed = tuple(required)
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, bool):
        extra_check: SchemaCheck | None = None
        closed = not extra
    else:
        extra_check, closed = _compile(extra), False
    if not compiled and not needed and extra is True:
        return []
    known = frozenset(properties)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in needed:
            if name not in value:
                return False
        for name, sub in compiled:
            if name in value and not sub(value[name]):
                return False
        if closed or extra_check is not None:
            for key, item in value.items():
                if key in known:
                    continue
                if closed or (extra_check is not None and not extra_check(item)):
                    return False
        return True

    return [check]
