"""Input schemas: the definition-time subset check and call-time validation."""

from __future__ import annotations

import enum
import json
from typing import Annotated, Any, Literal

import pydantic
import pytest
from jsonschema import Draft202012Validator

from harness_core import ToolDefinitionError, ToolInputError, define_harness_tool
from harness_core.tools.schema import (
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
    ("node", "low", "high"),
    [
        ({"type": "integer", "minimum": 5, "maximum": 1}, "minimum 5", "maximum 1"),
        ({"type": "number", "minimum": 0.5, "maximum": 0.25}, "minimum 0.5", "maximum 0.25"),
        ({"type": "string", "minLength": 3, "maxLength": 2}, "minLength 3", "maxLength 2"),
        ({"type": "array", "minItems": 4, "maxItems": 0}, "minItems 4", "maxItems 0"),
    ],
)
def test_contradictory_bounds_are_refused_naming_the_location(node: Any, low: str, high: str) -> None:
    schema = {"type": "object", "properties": {"outer": {"type": "object", "properties": {"v": node}}}}
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(schema)
    assert str(info.value) == (
        f"tool 't': input.properties.outer.properties.v: {low} is greater than {high}, so no value is valid"
    )


def test_equal_bounds_are_fine() -> None:
    tool = tool_with({"type": "object", "properties": {"v": {"type": "integer", "minimum": 3, "maximum": 3},
                                                       "s": {"type": "string", "minLength": 2, "maxLength": 2}}})
    assert tool.validate({"v": 3, "s": "ab"}) == {"v": 3, "s": "ab"}


@pytest.mark.parametrize("additional", [None, True, False, {"type": "string"}])
def test_required_name_missing_from_properties_is_refused(additional: object) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city", "zz"]}
    if additional is not None:
        schema["additionalProperties"] = additional
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(schema)
    assert str(info.value) == (
        "tool 't': input.required: 'zz' is required but not described in input.properties (properties: 'city')"
    )


def test_required_names_missing_from_nested_properties_are_all_named() -> None:
    schema = {"type": "object", "properties": {"o": {"type": "object", "properties": {}, "required": ["a", "b"]}}}
    with pytest.raises(ToolDefinitionError, match=r"input\.properties\.o\.required: 'a', 'b' are required but not "
                       r"described in input\.properties\.o\.properties \(properties: none\)"):
        tool_with(schema)


def test_required_without_properties_is_a_free_form_object_below_the_top() -> None:
    # A nested object without "properties" describes no property, so it is not checked...
    tool = tool_with({"type": "object", "properties": {"inner": {"type": "object", "required": ["k"]}}})
    assert tool.validate({"inner": {"k": 1}}) == {"inner": {"k": 1}}
    # ...but the top level always has (possibly empty) properties, which runtimes receive.
    with pytest.raises(ToolDefinitionError, match=r"input\.required: 'k' is required but not described"):
        tool_with({"type": "object", "required": ["k"]})


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


def walk_keys(node: Any) -> set[str]:
    """Every mapping key anywhere in a JSON document."""
    if isinstance(node, dict):
        return set(node) | {key for value in node.values() for key in walk_keys(value)}
    if isinstance(node, list):
        return {key for value in node for key in walk_keys(value)}
    return set()


def test_pydantic_nested_models_are_inlined_without_defs() -> None:
    schema = tool_with(Outer).json_schema
    assert schema["type"] == "object"
    inner = {"type": "object", "title": "Inner", "required": ["x"],
             "properties": {"x": {"title": "X", "type": "integer"},
                            "label": {"default": "", "title": "Label", "type": "string"}}}
    assert schema["properties"]["inner"] == inner
    assert schema["properties"]["items"]["items"] == inner
    assert not walk_keys(schema) & {"$ref", "$defs"}
    # Each place has its own copy: editing one never changes the other.
    assert schema["properties"]["inner"] is not schema["properties"]["items"]["items"]


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    meows: bool


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    barks: bool


class Rich(pydantic.BaseModel):
    """Everything pydantic exports beyond the hand-written subset."""

    maybe: int | None = None
    inner: Inner = pydantic.Field(description="The inner part.")
    shade: Shade
    code: str = pydantic.Field(default="ab", pattern=r"^[a-z]+$")
    email: str = pydantic.Field(json_schema_extra={"format": "email"})
    by_name: dict[str, Inner] = {}
    pet: Annotated[Cat | Dog, pydantic.Field(discriminator="kind")]
    pair: tuple[int, str]


def test_pydantic_exports_are_self_contained_and_keep_what_pydantic_validates() -> None:
    tool = tool_with(Rich)
    schema = tool.json_schema
    assert not walk_keys(schema) & {"$ref", "$defs", "discriminator"}
    props = schema["properties"]
    assert props["maybe"]["anyOf"] == [{"type": "integer"}, {"type": "null"}] and props["maybe"]["default"] is None
    # A $ref with siblings: the target inlined, the sibling kept on top.
    assert props["inner"]["description"] == "The inner part." and props["inner"]["properties"]["x"]["type"] == "integer"
    assert props["shade"] == {"enum": ["light", "dark"], "title": "Shade", "type": "string"}
    assert props["code"]["pattern"] == "^[a-z]+$" and props["code"]["default"] == "ab"
    assert props["email"]["format"] == "email"
    assert props["by_name"]["additionalProperties"]["title"] == "Inner"
    assert [option["title"] for option in props["pet"]["oneOf"]] == ["Cat", "Dog"]
    assert props["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    # The exported schema is valid JSON Schema and agrees with pydantic on good input.
    Draft202012Validator.check_schema(schema)
    good = {"inner": {"x": 1}, "shade": "dark", "email": "a@b.c", "pet": {"kind": "dog", "barks": True},
            "pair": [1, "a"], "by_name": {"k": {"x": 2}}}
    assert list(Draft202012Validator(schema).iter_errors(good)) == []
    value = tool.validate(good)
    assert isinstance(value, Rich) and value.shade is Shade.DARK and isinstance(value.pet, Dog)
    # pydantic, not the export, validates in the host: the pattern is enforced.
    assert "$.code" in problems_of(tool, {**good, "code": "UPPER"})


def test_recursive_pydantic_model_is_refused_clearly() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        tool_with(Node)
    message = str(info.value)
    assert message.startswith("tool 't': input model Node is recursive")
    assert "'#/$defs/Node' refers back to a schema that contains it" in message
    assert "Traceback" not in message


def test_mutually_recursive_pydantic_models_are_refused() -> None:
    class Even(pydantic.BaseModel):
        next: Odd | None = None

    class Odd(pydantic.BaseModel):
        next: Even | None = None

    Even.model_rebuild()

    class Root(pydantic.BaseModel):
        start: Even

    with pytest.raises(ToolDefinitionError, match="input model Root is recursive"):
        tool_with(Root)


def test_data_keywords_are_copied_untouched_by_inlining() -> None:
    # A default that looks like a schema is data: the keywords inlining drops must survive in it.
    data = {"discriminator": "kept", "$defs": {"A": 1}, "properties": {"definitions": 2}}

    class Odd(pydantic.BaseModel):
        blob: dict[str, Any] = pydantic.Field(default=data, examples=[data])
        inner: Inner

    schema = tool_with(Odd).json_schema
    assert schema["properties"]["blob"]["default"] == data
    assert schema["properties"]["blob"]["examples"] == [data]
    assert "$defs" not in schema


def test_properties_named_like_keywords_are_kept() -> None:
    class Named(pydantic.BaseModel):
        discriminator: str
        defs: int = pydantic.Field(alias="$defs")

    schema = tool_with(Named).json_schema
    assert set(schema["properties"]) == {"discriminator", "$defs"}


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


def test_pydantic_model_with_a_pointer_ref_is_inlined() -> None:
    class Custom(pydantic.BaseModel):
        a: list[int]
        b: list[int]

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            item = {"type": "array", "items": {"type": "integer"}}
            return {"type": "object", "properties": {"a": item, "b": {"$ref": "#/properties/a"}}}

    assert tool_with(Custom).json_schema["properties"]["b"] == {"type": "array", "items": {"type": "integer"}}


def test_pydantic_model_whose_ref_points_at_its_own_ancestor_is_recursive() -> None:
    with pytest.raises(ToolDefinitionError, match="input model Custom is recursive"):
        tool_with(_model_exporting("#/properties/a"))


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
    # Documented choice (harness_core.tools.schema): JSON Schema compares numbers by value.
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
