"""The subset check alone makes a hand-written tool schema valid JSON Schema (issue 17).

``define_harness_tool`` no longer runs jsonschema's ``check_schema`` on a hand-written
schema (importing jsonschema cost every tool pack's plugin discovery ~40 ms):
:func:`check_schema_subset` must refuse everything the Draft 2020-12 meta-schema refuses
within the subset. Checked here against jsonschema itself, on hand-picked edge cases and on
a few thousand schemas drawn from the subset's grammar (valid and broken values mixed).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError

from harness_core import ToolDefinitionError, define_harness_tool
from harness_core.tools.schema_subset import check_schema_subset


def _meta_valid(schema: object) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


def _subset_valid(schema: object) -> bool:
    try:
        check_schema_subset(schema)
    except ToolDefinitionError:
        return False
    return True


_VALUES: dict[str, list[Any]] = {
    "type": ["string", "integer", "object", ["string", "null"], ["string", "string"], [], ["strng"], 3, None],
    "required": [[], ["a"], ["a", "b"], ["a", "a"], "a", [1], [None]],
    "enum": [[1], ["a", "a"], [None, True, 1.5], [], "a", {"a": 1}],
    "const": [1, "a", None, [1, 2], {"k": "v"}],
    "minLength": [0, 1, 7, -1, 1.5, True, "1", None],
    "maxLength": [0, 3, 100, -2, 2.0, False],
    "minItems": [0, 2, -1, 1.0, "x"],
    "maxItems": [0, 5, -3, True],
    "minimum": [0, -1, 2.5, 10**20, True, "0", None],
    "maximum": [0, 1, 3.5, False, [1]],
    "title": ["t", "", 1, None],
    "description": ["d", 2, ["d"]],
    "additionalProperties": [True, False, "no", 1, None],
}
"""Values each keyword may take in the generator: valid ones and broken ones."""


def _schema(rng: random.Random, depth: int) -> Any:
    if depth > 2 or rng.random() < 0.05:
        return rng.choice([{}, "string", 1, None, True, []])
    node: dict[str, Any] = {}
    for keyword in rng.sample(sorted(_VALUES), rng.randint(0, 4)):
        node[keyword] = rng.choice(_VALUES[keyword])
    if rng.random() < 0.5:
        names = rng.sample(["a", "b", "c"], rng.randint(0, 3))
        node["properties"] = {name: _schema(rng, depth + 1) for name in names}
        if rng.random() < 0.3:
            node["properties"] = rng.choice([[], "x", None])
    if rng.random() < 0.3:
        node["items"] = _schema(rng, depth + 1)
    if rng.random() < 0.2:
        node["additionalProperties"] = _schema(rng, depth + 1)
    return node


def test_every_generated_schema_the_subset_accepts_is_valid_json_schema() -> None:
    rng = random.Random(17)
    accepted = refused_by_both = 0
    for _ in range(4000):
        schema = _schema(rng, 0)
        if _subset_valid(schema):
            assert _meta_valid(schema), schema
            accepted += 1
        elif not _meta_valid(schema):
            refused_by_both += 1
    # The generator reaches both sides, so the implication above is tested, not vacuous.
    assert accepted > 300 and refused_by_both > 300, (accepted, refused_by_both)


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "object", "properties": {"a": {"type": ["string", "string"]}}}, "input.properties.a.type: lists a type twice"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]},
         "input.required: names a property twice"),
    ],
)
def test_what_only_the_meta_schema_refused_before_is_refused_at_definition(schema: dict[str, Any], fragment: str) -> None:
    assert not _meta_valid(schema)
    with pytest.raises(ToolDefinitionError) as info:
        define_harness_tool(name="t", description="d", input=schema, execute=lambda input, context: "ok")
    assert f"tool 't': {fragment}" in str(info.value)


def test_a_hand_written_schema_still_validates_arguments_on_first_use() -> None:
    tool = define_harness_tool(
        name="t", description="d", execute=lambda input, context: "ok",
        input={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]},
    )
    assert tool.validate({"n": 2}) == {"n": 2}
    with pytest.raises(Exception, match=r"\$\.n"):
        tool.validate({"n": 0})
    assert tool.validate('{"n": 3}') == {"n": 3}  # the validator is built once and kept
