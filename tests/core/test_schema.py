"""Input schemas: the definition-time subset check and call-time validation."""

from __future__ import annotations

import json
from typing import Any, Literal

import pydantic
import pytest

from harness_core import ToolDefinitionError, ToolInputError, define_harness_tool
from harness_core.schema import (
    SUPPORTED_KEYWORDS,
    check_schema_subset,
    compile_input_schema,
    decode_arguments,
)


def tool_with(input: Any) -> Any:
    return define_harness_tool(name="t", description="A test tool.", input=input)


def problems_of(tool: Any, arguments: object) -> dict[str, str]:
    with pytest.raises(ToolInputError) as info:
        tool.validate(arguments)
    assert info.value.tool_name == tool.name
    return dict(info.value.problems)


# -- the subset, at definition time --------------------------------------------------------


def test_every_supported_keyword_is_accepted() -> None:
    schema = {
        "type": "object",
        "title": "Weather",
        "description": "Arguments",
        "properties": {
            "city": {"type": "string", "minLength": 1, "maxLength": 80},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "maxItems": 3},
            "unit": {"enum": ["C", "F"]},
            "version": {"const": 2},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    used = set(schema) | {k for prop in schema["properties"].values() for k in prop}  # type: ignore[attr-defined]
    assert used == SUPPORTED_KEYWORDS
    assert tool_with(schema).json_schema == schema


@pytest.mark.parametrize(
    ("schema", "location", "keyword"),
    [
        ({"type": "object", "pattern": "x"}, "input.pattern", "pattern"),
        ({"type": "object", "$defs": {}}, "input.$defs", "$defs"),
        (
            {"type": "object", "properties": {"city": {"type": "string", "format": "email"}}},
            "input.properties.city.format",
            "format",
        ),
        (
            {"type": "object", "properties": {"tags": {"type": "array", "items": {"oneOf": []}}}},
            "input.properties.tags.items.oneOf",
            "oneOf",
        ),
        (
            {"type": "object", "additionalProperties": {"type": "string", "default": "x"}},
            "input.additionalProperties.default",
            "default",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "object",
                        "properties": {"b": {"type": "array", "items": {"$ref": "#/x"}}},
                    }
                },
            },
            "input.properties.a.properties.b.items.$ref",
            "$ref",
        ),
    ],
)
def test_unsupported_keyword_is_refused_naming_its_location(schema: Any, location: str, keyword: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(schema)
    message = str(info.value)
    assert f"{location}: keyword {keyword!r} is not supported" in message
    assert "'t'" in message  # the tool


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "object", "properties": {"a": {"type": "strng"}}}, "input.properties.a.type"),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}, "input.properties.a.minLength"),
        ({"type": "object", "properties": {"a": {"type": "string", "maxLength": True}}}, "input.properties.a.maxLength"),
        ({"type": "object", "properties": {"a": {"type": "integer", "minimum": "1"}}}, "input.properties.a.minimum"),
        ({"type": "object", "properties": {"a": {"enum": []}}}, "input.properties.a.enum"),
        ({"type": "object", "required": "a"}, "input.required"),
        ({"type": "object", "properties": []}, "input.properties"),
        ({"type": "object", "properties": {"a": "string"}}, "input.properties.a"),
        ({"type": "object", "properties": {"a": {"type": "string", "title": 3}}}, "input.properties.a.title"),
    ],
)
def test_malformed_keyword_values_are_refused(schema: Any, fragment: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(schema)
    assert f"{fragment}:" in str(info.value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {"type": "array", "items": {"type": "string"}},
        {"type": ["object", "null"]},
        {"properties": {"a": {"type": "string"}}},  # no "type": "object"
    ],
)
def test_non_object_top_level_is_refused(schema: Any) -> None:
    with pytest.raises(ToolDefinitionError, match=r"input\.type must be 'object'"):
        tool_with(schema)


@pytest.mark.parametrize("schema", [{}, {"type": "object"}, {"type": "object", "properties": {}}])
def test_no_argument_tool_exports_an_empty_object_schema(schema: Any) -> None:
    tool = tool_with(schema)
    assert tool.json_schema == {"type": "object", "properties": {}}
    assert tool.validate({}) == {}
    assert tool.validate(None) == {}
    assert tool.validate("") == {}


def test_input_that_is_neither_schema_nor_model_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="input must be a JSON Schema object or a pydantic model class, got str"):
        tool_with("object")


def test_schema_holding_non_json_values_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="input schema is not JSON data"):
        tool_with({"type": "object", "properties": {"a": {"enum": [{1, 2}]}}})


def test_schema_is_copied_at_definition() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    tool = tool_with(schema)
    schema["properties"]["a"]["type"] = "integer"
    assert tool.json_schema["properties"]["a"]["type"] == "string"
    assert tool.validate({"a": "x"}) == {"a": "x"}


def test_check_schema_subset_reports_a_custom_root_location() -> None:
    with pytest.raises(ToolDefinitionError, match=r"^args\.properties\.x\.anyOf:"):
        check_schema_subset({"properties": {"x": {"anyOf": []}}}, "args")


# -- pydantic models ---------------------------------------------------------------------


class Inner(pydantic.BaseModel):
    x: int
    label: str = ""


class Outer(pydantic.BaseModel):
    inner: Inner
    items: list[Inner] = []
    mode: Literal["fast", "slow"] = "fast"


class Node(pydantic.BaseModel):
    name: str
    children: list[Node] = []


class Empty(pydantic.BaseModel):
    pass


def test_pydantic_model_validation_returns_a_model_instance() -> None:
    tool = tool_with(Outer)
    value = tool.validate({"inner": {"x": 1}, "items": [{"x": 2, "label": "b"}]})
    assert isinstance(value, Outer)
    assert isinstance(value.inner, Inner)
    assert value.items[0] == Inner(x=2, label="b")


def test_pydantic_nested_models_export_self_contained_defs() -> None:
    schema = tool_with(Outer).json_schema
    assert schema["type"] == "object"
    assert schema["properties"]["inner"] == {"$ref": "#/$defs/Inner"}
    assert schema["$defs"]["Inner"]["properties"]["x"] == {"title": "X", "type": "integer"}


def test_recursive_pydantic_model_is_inlined_at_the_top() -> None:
    # pydantic exports {"$ref": "#/$defs/Node", "$defs": ...}; runtimes need type object on top.
    tool = tool_with(Node)
    schema = tool.json_schema
    assert schema["type"] == "object"
    assert "$ref" not in schema
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert "Node" in schema["$defs"]
    tree = tool.validate({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]})
    assert tree.children[0].children[0].name == "c"


def test_empty_pydantic_model_has_object_schema_with_properties() -> None:
    tool = tool_with(Empty)
    assert tool.json_schema["type"] == "object"
    assert tool.json_schema["properties"] == {}
    assert isinstance(tool.validate(None), Empty)


def _model_exporting(ref: str) -> type[pydantic.BaseModel]:
    class Custom(pydantic.BaseModel):
        a: list[int]

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            # A hand-written export (some projects customize it): "a" points at a definition.
            return {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": ref}}}}

    return Custom


def test_pydantic_model_with_dangling_ref_is_refused() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(_model_exporting("#/$defs/Missing"))
    message = str(info.value)
    assert "exported by Custom is not self-contained" in message
    assert "input.properties.a.items.$ref" in message
    assert "'#/$defs/Missing' does not resolve" in message


def test_pydantic_model_with_external_ref_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="points outside the schema"):
        tool_with(_model_exporting("https://example.invalid/s.json"))


def test_pydantic_model_with_resolving_ref_is_accepted() -> None:
    model = _model_exporting("#/properties/a")
    assert tool_with(model).json_schema["properties"]["a"]["items"] == {"$ref": "#/properties/a"}


def test_pydantic_model_whose_export_crashes_is_a_definition_error() -> None:
    # pydantic itself raises KeyError for a field-level $ref it cannot find.
    class Broken(pydantic.BaseModel):
        a: int = pydantic.Field(json_schema_extra={"$ref": "#/$defs/Missing"})

    with pytest.raises(ToolDefinitionError, match="input model Broken cannot export JSON Schema: KeyError"):
        tool_with(Broken)


def test_pydantic_root_model_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="must export an object schema"):
        tool_with(pydantic.RootModel[list[int]])


def test_pydantic_validation_lists_every_problem_with_its_path() -> None:
    problems = problems_of(tool_with(Outer), {"inner": {"x": "no"}, "items": [{"x": 1}, {}], "mode": "warp"})
    assert set(problems) == {"$.inner.x", "$.items[1].x", "$.mode"}
    assert problems["$.items[1].x"] == "Field required"


def test_pydantic_arguments_that_are_not_json_are_refused() -> None:
    problems = problems_of(tool_with(Inner), {"x": {1, 2}})
    assert list(problems) == ["$"]
    assert "not JSON data" in problems["$"]


# -- validation: every problem, with its JSON path -----------------------------------------

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "unit": {"enum": ["C", "F"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_valid_arguments_are_returned_as_a_dict() -> None:
    args = {"city": "Paris", "days": 3, "tags": ["a"], "unit": "C"}
    assert tool_with(WEATHER).validate(args) == args


def test_validation_lists_every_problem_with_its_json_path() -> None:
    tool = tool_with(WEATHER)
    with pytest.raises(ToolInputError) as info:
        tool.validate({"days": 0, "tags": ["a", 1, "c"], "unit": "K", "extra": True})
    problems = info.value.problems
    paths = [path for path, _ in problems]
    assert sorted(paths) == ["$", "$", "$.days", "$.tags", "$.tags[1]", "$.unit"]
    joined = " | ".join(f"{p}: {m}" for p, m in problems)
    assert "'city' is a required property" in joined
    assert "'extra'" in joined  # additionalProperties
    assert "$.days: 0 is less than the minimum of 1" in joined
    assert "$.tags[1]: 1 is not of type 'string'" in joined
    message = str(info.value)
    assert message.startswith("invalid input for tool 't': ")
    assert "$.unit: " in message


@pytest.mark.parametrize("kind", ["integer", "number"])
def test_booleans_are_not_integers_or_numbers(kind: str) -> None:
    tool = tool_with({"type": "object", "properties": {"n": {"type": kind}}})
    assert tool.validate({"n": 1}) == {"n": 1}
    problems = problems_of(tool, {"n": True})
    assert problems == {"$.n": f"True is not of type '{kind}'"}
    assert problems_of(tool, {"n": False}) == {"$.n": f"False is not of type '{kind}'"}


def test_booleans_are_not_integers_or_numbers_for_pydantic_models() -> None:
    class Counts(pydantic.BaseModel):
        n: int
        x: float = 0.0

    tool = tool_with(Counts)
    assert set(problems_of(tool, {"n": True, "x": True})) == {"$.n", "$.x"}
    assert set(problems_of(tool, {"n": "1"})) == {"$.n"}  # no string coercion either
    assert tool.validate({"n": 1, "x": 2}).x == 2.0  # an integer is a number


def test_pydantic_model_that_chooses_lax_mode_is_obeyed() -> None:
    class Lax(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(strict=False)
        n: int

    assert tool_with(Lax).validate({"n": "3"}).n == 3


@pytest.mark.parametrize(
    ("keyword_schema", "value"),
    [
        ({"enum": [1, 2]}, True),
        ({"enum": [True]}, 1),
        ({"enum": [0]}, False),
        ({"enum": [False]}, 0),
        ({"const": 1}, True),
        ({"const": True}, 1),
        ({"const": [1]}, [True]),
        ({"const": {"a": 0}}, {"a": False}),
    ],
)
def test_enum_and_const_compare_json_values_not_python_equality(keyword_schema: dict[str, Any], value: object) -> None:
    tool = tool_with({"type": "object", "properties": {"v": keyword_schema}})
    assert set(problems_of(tool, {"v": value})) == {"$.v"}


@pytest.mark.parametrize(("keyword_schema", "value"), [({"const": 1}, 1.0), ({"enum": [1.0]}, 1), ({"const": [2]}, [2.0])])
def test_numbers_compare_mathematically_so_one_point_zero_matches_one(keyword_schema: dict[str, Any], value: object) -> None:
    # Documented choice (harness_core.schema): JSON Schema compares numbers by value.
    tool = tool_with({"type": "object", "properties": {"v": keyword_schema}})
    assert tool.validate({"v": value}) == {"v": value}


def test_integral_float_is_an_integer_in_json_schema() -> None:
    tool = tool_with({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert tool.validate({"n": 1.0}) == {"n": 1.0}
    assert set(problems_of(tool, {"n": 1.5})) == {"$.n"}


# -- arguments given as JSON text ---------------------------------------------------------


def test_json_string_arguments_are_decoded() -> None:
    tool = tool_with(WEATHER)
    assert tool.validate('{"city": "Paris", "days": 2}') == {"city": "Paris", "days": 2}
    assert tool.validate(b'{"city": "Oslo"}') == {"city": "Oslo"}


def test_json_string_arguments_are_decoded_only_once() -> None:
    tool = tool_with(WEATHER)
    twice = json.dumps(json.dumps({"city": "Paris"}))
    problems = problems_of(tool, twice)
    assert list(problems) == ["$"]
    assert "is not of type 'object'" in problems["$"]
    assert '{"city": "Paris"}' in problems["$"]  # the once-decoded value is a string


def test_json_string_arguments_are_decoded_only_once_for_pydantic_models() -> None:
    tool = tool_with(Inner)
    assert tool.validate('{"x": 5}') == Inner(x=5)
    with pytest.raises(ToolInputError):
        tool.validate(json.dumps('{"x": 5}'))


def test_a_string_value_holding_json_stays_a_string() -> None:
    tool = tool_with({"type": "object", "properties": {"payload": {"type": "string"}}})
    inner = json.dumps({"a": 1})
    assert tool.validate(json.dumps({"payload": inner})) == {"payload": inner}


def test_invalid_json_text_is_one_problem_at_the_root() -> None:
    problems = problems_of(tool_with(WEATHER), '{"city": ')
    assert list(problems) == ["$"]
    assert problems["$"].startswith("arguments are not valid JSON")


def test_decode_arguments_copies_other_mappings_into_a_dict() -> None:
    from types import MappingProxyType

    decoded = decode_arguments("t", MappingProxyType({"a": 1}))
    assert type(decoded) is dict
    assert tool_with({"type": "object"}).validate(MappingProxyType({"a": 1})) == {"a": 1}


def test_compile_input_schema_is_usable_on_its_own() -> None:
    compiled = compile_input_schema("t", {"type": "object", "properties": {"a": {"type": "string"}}})
    assert compiled.validate("t", {"a": "x"}) == {"a": "x"}
    assert compiled.model is None
