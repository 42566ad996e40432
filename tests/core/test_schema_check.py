"""The compiled subset check agrees with jsonschema (Draft 2020-12) on every verdict.

``schema_checker`` is a fast path in front of jsonschema: a ``True`` it gives skips
jsonschema, so a wrong ``True`` would let invalid input through. These tests compare its
verdicts with ``Draft202012Validator.is_valid`` on hand-picked edge cases and on seeded
random schemas and values, and check that what it does not understand compiles to None.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import jsonschema
import pytest

from harness_core import ToolInputError, define_harness_tool
from harness_core.tools.schema_check import schema_checker

EDGE_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 1.5, -0.0, 10**30, "", "a", "abc", "é", "😀😀", "1", "true",
    [], [1], ["a", "b"], [None], [[1]], {}, {"a": 1}, {"a": "x"}, {"a": "x", "b": 2}, {"b": True},
    {"a": None}, {"a": ["x"]}, {"a": {"b": 1}},
]
NOT_JSON: list[Any] = [(1, 2), 3 + 0j, Decimal("1.5"), {"a": (1,)}, b"a"]
"""Not JSON data: the check may answer False (jsonschema decides), never a True jsonschema denies."""

EDGE_SCHEMAS: list[dict[str, Any]] = [
    {}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
    {"type": ["string", "null"]}, {"type": "string", "minLength": 1, "maxLength": 2},
    {"minLength": 2}, {"type": "number", "minimum": 0, "maximum": 1}, {"minimum": 1.5},
    {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
    {"items": {"type": "integer"}}, {"enum": ["a", "b"]}, {"const": "a"},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}}},
    {"required": ["a", "b"]}, {"title": "t", "description": "d", "type": "object"},
]


@pytest.mark.parametrize("schema", EDGE_SCHEMAS, ids=[str(s) for s in EDGE_SCHEMAS])
def test_edge_cases_agree_with_jsonschema(schema: dict[str, Any]) -> None:
    check = schema_checker(schema)
    assert check is not None
    validator = jsonschema.Draft202012Validator(schema)
    for value in EDGE_VALUES:
        assert check(value) == validator.is_valid(value), (schema, value)
    for value in NOT_JSON:
        if check(value):
            assert validator.is_valid(value), (schema, value)


def _random_schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if rng.random() < 0.7:
        names = rng.sample(["object", "array", "string", "number", "integer", "boolean", "null"], rng.randint(1, 2))
        schema["type"] = names[0] if len(names) == 1 or rng.random() < 0.5 else names
    if rng.random() < 0.2:
        schema["enum"] = rng.sample(["a", "b", "c", "1", ""], rng.randint(1, 3))
    for low, high in (("minLength", "maxLength"), ("minItems", "maxItems")):
        if rng.random() < 0.3:
            schema[low] = rng.randint(0, 2)
        if rng.random() < 0.3:
            schema[high] = rng.randint(0, 3)
    if rng.random() < 0.3:
        schema["minimum"] = rng.choice([0, 1, -1.5, 2.0])
    if rng.random() < 0.3:
        schema["maximum"] = rng.choice([0, 3, 2.5])
    if depth < 2 and rng.random() < 0.4:
        schema["items"] = _random_schema(rng, depth + 1)
    if depth < 2 and rng.random() < 0.6:
        props = {name: _random_schema(rng, depth + 1) for name in rng.sample(["a", "b", "c"], rng.randint(0, 3))}
        schema["properties"] = props
        if props and rng.random() < 0.5:
            schema["required"] = rng.sample(sorted(props), rng.randint(1, len(props)))
    if depth < 2 and rng.random() < 0.3:
        schema["additionalProperties"] = rng.choice([True, False, {"type": "string"}, {"type": "integer"}])
    return schema


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randint(0, 8 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, 2, 3, -1, 10**20])
    if kind == 3:
        return rng.choice([0.0, 1.0, 1.5, -1.5, 2.5, 3.0])
    if kind in (4, 5, 6):
        return rng.choice(["", "a", "b", "c", "ab", "abc", "1", "é"])
    if kind == 7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {name: _random_value(rng, depth + 1) for name in rng.sample(["a", "b", "c", "d"], rng.randint(0, 4))}


def test_random_schemas_and_values_agree_with_jsonschema() -> None:
    rng = random.Random(17)
    disagreements = []
    compared = 0
    for _ in range(400):
        schema = _random_schema(rng)
        check = schema_checker(schema)
        assert check is not None, schema
        validator = jsonschema.Draft202012Validator(schema)
        for _ in range(40):
            value = _random_value(rng)
            compared += 1
            if check(value) != validator.is_valid(value):
                disagreements.append((schema, value))
    assert not disagreements[:5]
    assert compared == 16000


@pytest.mark.parametrize("schema", [
    {"type": "string", "pattern": "^a"}, {"anyOf": [{"type": "string"}]}, {"$ref": "#/$defs/x"},
    {"enum": [1, 2]}, {"enum": ["a", True]}, {"const": 1}, {"items": True}, {"properties": {"a": False}},
    {"type": "date"}, {"minLength": -1}, {"minimum": "1"}, {"format": "uri"}, {"default": 1}, [], "x",
])
def test_what_it_does_not_understand_compiles_to_none(schema: Any) -> None:
    assert schema_checker(schema) is None


def test_a_tool_rejects_invalid_input_with_jsonschemas_messages() -> None:
    tool = define_harness_tool(
        name="t", description="d",
        input={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"],
               "additionalProperties": False},
        execute=lambda value, context: value,
    )
    assert tool.validate({"n": 2}) == {"n": 2}
    with pytest.raises(ToolInputError) as caught:
        tool.validate({"n": 0, "x": True})
    problems = dict(caught.value.problems)
    assert "0 is less than the minimum of 1" in problems["$.n"]
    assert "Additional properties are not allowed" in problems["$"]
    with pytest.raises(ToolInputError):
        tool.validate({"n": True})
