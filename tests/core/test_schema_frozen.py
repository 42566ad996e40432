"""Tool schemas are deep-frozen: what a runtime is offered is exactly what ``validate`` enforces.

Mutating a defined tool's ``json_schema`` (at any depth) raises; adapters receive that same
frozen schema (in ``StartRequest.host_tools``, and over the wire to a model); a mutable copy
is one ``.to_json()`` away and changes nothing in the tool.
"""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pydantic
import pytest

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    ToolInputError,
    define_harness_tool,
)
from harness_core.testing import (
    CallHost,
    EchoResults,
    ModelTurn,
    Script,
    ScriptedAdapter,
    ToolCallSpec,
)
from harness_core.tools.definition import BuiltinTool, ToolKind
from harness_core.tools.frozen import FrozenJsonArray, FrozenJsonObject, freeze_json, thaw_json

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "unit": {"enum": ["C", "F"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def weather() -> Any:
    return define_harness_tool(name="weather", description="Weather.", input=SCHEMA,
                               execute=lambda input, ctx: f"sunny in {input['city']}")


MUTATIONS = [
    ("set a top-level keyword", lambda s: s.__setitem__("pattern", "x")),
    ("delete required", lambda s: s.__delitem__("required")),
    ("update", lambda s: s.update({"additionalProperties": True})),
    ("setdefault", lambda s: s.setdefault("minProperties", 1)),
    ("pop", lambda s: s.pop("properties")),
    ("popitem", lambda s: s.popitem()),
    ("clear", lambda s: s.clear()),
    ("in-place or", lambda s: s.__ior__({"x": 1})),
    ("nested set", lambda s: s["properties"]["city"].__setitem__("minLength", 0)),
    ("nested delete", lambda s: s["properties"].__delitem__("unit")),
    ("append to required", lambda s: s["required"].append("unit")),
    ("extend an enum", lambda s: s["properties"]["unit"]["enum"].extend(["K"])),
    ("replace an enum item", lambda s: s["properties"]["unit"]["enum"].__setitem__(0, "K")),
    ("in-place add", lambda s: s["required"].__iadd__(["unit"])),
    ("in-place mul", lambda s: s["required"].__imul__(2)),
    ("insert", lambda s: s["required"].insert(0, "x")),
    ("remove", lambda s: s["required"].remove("city")),
    ("list pop", lambda s: s["required"].pop()),
    ("list clear", lambda s: s["required"].clear()),
    ("sort", lambda s: s["properties"]["unit"]["enum"].sort(reverse=True)),
    ("reverse", lambda s: s["properties"]["unit"]["enum"].reverse()),
]


@pytest.mark.parametrize(("what", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_mutation_of_a_tool_schema_raises(what: str, mutate: Any) -> None:
    tool = weather()
    before = json.dumps(tool.json_schema, sort_keys=True)
    with pytest.raises(TypeError, match="frozen"):
        mutate(tool.json_schema)
    assert json.dumps(tool.json_schema, sort_keys=True) == before
    # Validation still enforces the schema as defined.
    with pytest.raises(ToolInputError):
        tool.validate({"city": ""})
    assert tool.validate({"city": "Oslo", "unit": "C"}) == {"city": "Oslo", "unit": "C"}


def test_reinitialising_does_not_refill() -> None:
    schema = weather().json_schema
    schema.__init__({"type": "string"})
    schema["required"].__init__(["other"])
    assert schema == SCHEMA


def test_the_compiled_schema_cannot_be_swapped() -> None:
    tool = weather()
    with pytest.raises(AttributeError, match="immutable"):
        tool.input_schema.json_schema = {"type": "object", "properties": {}}  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        tool.input_schema.model = None  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del tool.input_schema.json_schema


def test_the_callers_dict_stays_theirs_and_copies_are_plain() -> None:
    mine = copy.deepcopy(SCHEMA)
    tool = define_harness_tool(name="t", description="T.", input=mine)
    mine["properties"]["city"]["minLength"] = 5
    assert tool.json_schema["properties"]["city"]["minLength"] == 1
    plain = tool.json_schema.to_json()
    assert type(plain) is dict and type(plain["required"]) is list
    assert type(plain["properties"]["city"]) is dict
    plain["properties"]["city"]["minLength"] = 9
    plain["required"].append("unit")
    assert tool.json_schema == SCHEMA
    assert type(dict(tool.json_schema)) is dict and type(tool.json_schema.copy()) is dict
    assert thaw_json(tool.json_schema) == SCHEMA
    assert copy.deepcopy(tool.json_schema) is tool.json_schema
    restored = pickle.loads(pickle.dumps(tool.json_schema))
    assert restored == SCHEMA and isinstance(restored, FrozenJsonObject)


def test_frozen_values_are_json_data() -> None:
    frozen = freeze_json({"a": [1, {"b": (2, 3)}], "c": None})
    assert isinstance(frozen, dict) and isinstance(frozen["a"], FrozenJsonArray)
    assert isinstance(frozen["a"], list) and isinstance(frozen["a"][1]["b"], FrozenJsonArray)
    assert json.loads(json.dumps(frozen)) == {"a": [1, {"b": [2, 3]}], "c": None}
    assert frozen == {"a": [1, {"b": [2, 3]}], "c": None}
    assert hash(frozen) == hash(freeze_json({"c": None, "a": [1, {"b": [2, 3]}]}))
    assert freeze_json(frozen) is frozen


def test_pydantic_exports_are_frozen_too() -> None:
    class Args(pydantic.BaseModel):
        city: str
        days: int = 1

    tool = define_harness_tool(name="p", description="P.", input=Args)
    with pytest.raises(TypeError, match="frozen"):
        tool.json_schema["properties"]["days"]["default"] = 7
    with pytest.raises(TypeError, match="frozen"):
        tool.json_schema["required"].append("days")


def test_builtin_schemas_are_frozen() -> None:
    builtin = BuiltinTool(name="read", native_name="Read", kind=ToolKind.READ_ONLY,
                          input_schema={"type": "object", "properties": {"file_path": {"type": "string"}}})
    assert builtin.input_schema == {"type": "object", "properties": {"file_path": {"type": "string"}}}
    with pytest.raises(TypeError, match="frozen"):
        builtin.input_schema["properties"]["file_path"]["type"] = "integer"
    with pytest.raises(TypeError, match="frozen"):
        BuiltinTool(name="x", native_name="x", kind=ToolKind.EDIT).input_schema["properties"]["y"] = {}


@pytest.mark.anyio
async def test_adapters_receive_the_schema_validate_enforces(tmp_path: Path) -> None:
    tool = weather()
    adapter = ScriptedAdapter([[[CallHost("weather", {"city": "Oslo"}, id="w1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool])
    session = await agent.create_session(sandbox=LocalSandbox(tmp_path))
    result = await agent.generate(session=session, prompt="go")
    assert result.text == "weather: sunny in Oslo"
    [spec] = [s for s in adapter.starts[0].host_tools if s.name == "weather"]
    assert spec.input_schema == SCHEMA
    # The adapter cannot edit what it was given into something validate() does not enforce.
    with pytest.raises(TypeError, match="frozen"):
        spec.input_schema["properties"]["city"]["minLength"] = 0
    with pytest.raises(TypeError, match="frozen"):
        spec.input_schema["required"].clear()
    assert spec.input_schema == tool.json_schema == SCHEMA


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_the_model_is_offered_exactly_the_validated_schema(
    scripted_model_server: Any, tmp_path: Path, wire: str
) -> None:
    """The built-in harness serialises the frozen schema to the wire unchanged."""
    tool = weather()
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("weather", {"city": "Oslo"})]), "done"))
    base = server.base_url if wire == "anthropic" else server.openai_base_url
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False, tools=[tool],
                         harness_options={"model": f"{wire}:fake-model", "base_url": base,
                                          "api_key": "test-key", "max_retries": 0})
    async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
        result = await agent.generate(session=session, prompt="weather?")
    assert result.text.endswith("done")
    request = server.model_requests[0]
    [offered] = [t for t in request.tools if t.name == "weather"]
    assert offered.input_schema == SCHEMA == tool.json_schema
