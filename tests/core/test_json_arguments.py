"""Tool-call arguments are strict JSON: NaN/Infinity never pass bounds, deep nesting is a
ToolInputError (not RecursionError), JSON null means no arguments."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from harness_core import ToolInputError, define_harness_tool
from harness_core.parts.models import ToolErrorPart, ToolResultPart
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

BOUNDED = {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "maximum": 10}}}


def tool(input: Any = BOUNDED) -> Any:
    return define_harness_tool(name="t", description="t", input=input, execute=lambda i, c: "ran")


class Bounded(pydantic.BaseModel):
    n: float = pydantic.Field(default=1, ge=0, le=10)


@pytest.mark.parametrize("arguments", ['{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}',
                                       {"n": float("nan")}, {"n": float("inf")}, {"n": [float("-inf")]}])
@pytest.mark.parametrize("schema", [BOUNDED, Bounded], ids=["json-schema", "pydantic"])
def test_non_finite_numbers_are_refused(arguments: Any, schema: Any) -> None:
    with pytest.raises(ToolInputError, match=r"not a JSON number|not JSON data|Infinity|NaN"):
        tool(schema).validate(arguments)


@pytest.mark.parametrize("arguments", ["[" * 100000, '{"a":' * 5000 + "1" + "}" * 5000])
def test_deep_nesting_is_a_tool_input_error(arguments: str) -> None:
    with pytest.raises(ToolInputError, match="nested"):
        tool().validate(arguments)


def test_deep_nesting_in_a_mapping_is_a_tool_input_error() -> None:
    value: Any = 1
    for _ in range(5000):
        value = [value]
    with pytest.raises(ToolInputError, match="nested deeper"):
        tool().validate({"n": value})


def test_json_null_means_no_arguments() -> None:
    assert tool().validate("null") == {}
    assert tool().validate(" null ") == {}
    required = tool({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]})
    with pytest.raises(ToolInputError, match="'n' is a required property"):
        required.validate("null")


def test_strings_with_brackets_are_not_nesting() -> None:
    text = '{"n": 1, "s": "' + "[" * 1000 + '"}'
    assert tool({"type": "object"}).validate(text)["s"] == "[" * 1000


@pytest.mark.anyio
async def test_a_deeply_nested_host_call_gives_an_error_part_and_the_turn_goes_on() -> None:
    # c3 first: a rejected call before a run one in the same step trips a separate scripted-adapter bug.
    adapter = ScriptedAdapter([[[CallHost("t", "null", id="c3"), CallHost("t", "[" * 100000, id="c1"),
                                 CallHost("t", '{"n": NaN}', id="c2")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool()])
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop", result.error
    errors = {p.tool_call_id: p.error for p in result.parts if isinstance(p, ToolErrorPart)}
    assert set(errors) == {"c1", "c2"} and "nested" in errors["c1"] and "NaN" in errors["c2"]
    assert [p.tool_call_id for p in result.parts if isinstance(p, ToolResultPart)] == ["c3"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
