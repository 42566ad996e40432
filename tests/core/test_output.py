"""Tool results: execute (sync / async), normalization, truncation, serialization, on_error."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from harness_core import (
    MAX_OUTPUT_CHARS,
    ExecutionContext,
    ToolCall,
    ToolContext,
    ToolExecutionError,
    ToolOutput,
    create_plugin_manager,
    define_harness_tool,
    normalize_output,
    run_tool,
)
from harness_core.tools.output import sanitize_text, truncate_text

pytestmark = pytest.mark.anyio


def tool_running(execute: Callable[..., Any], **options: Any) -> Any:
    return define_harness_tool(
        name="probe",
        description="Returns what the test asks.",
        input={"type": "object", "properties": {}},
        execute=execute,
        **options,
    )


async def run(execute: Callable[..., Any], *, on_error: Any = "return-to-model", **options: Any) -> ToolOutput:
    tool = tool_running(execute, **options)
    context = ExecutionContext(
        tool=tool, tool_context=ToolContext(tool_call_id="call-1", tool_name="probe"), on_error=on_error
    )
    return await run_tool(ToolCall(tool_call_id="call-1", tool_name="probe", input={}), context)


def serializes(output: ToolOutput) -> bytes:
    # What every transport does: JSON without ASCII escaping, then UTF-8.
    return json.dumps(output.to_json(), ensure_ascii=False).encode("utf-8")


# -- what execute may return, sync and async ----------------------------------------------

RESULTS: list[tuple[object, ToolOutput]] = [
    ("plain text", ToolOutput("plain text")),
    (ToolOutput("failed", is_error=True), ToolOutput("failed", is_error=True)),
    ({"content": "from a mapping", "isError": True}, ToolOutput("from a mapping", is_error=True)),
    ({"content": "no flag"}, ToolOutput("no flag", is_error=False)),
    ({"content": "snake", "is_error": True}, ToolOutput("snake", is_error=True)),
    ({"city": "Paris", "celsius": 12}, ToolOutput('{"city": "Paris", "celsius": 12}')),
    ([1, "two"], ToolOutput('[1, "two"]')),
    (None, ToolOutput("")),
    (b"bytes", ToolOutput("bytes")),
]


@pytest.mark.parametrize(("result", "expected"), RESULTS)
async def test_sync_execute_results(result: object, expected: ToolOutput) -> None:
    assert await run(lambda input, context: result) == expected


@pytest.mark.parametrize(("result", "expected"), RESULTS)
async def test_async_execute_results(result: object, expected: ToolOutput) -> None:
    async def execute(input: Any, context: ToolContext) -> object:
        return result

    assert await run(execute) == expected


async def test_structured_result_keeps_its_value() -> None:
    output = await run(lambda input, context: {"n": 1})
    assert output.value == {"n": 1}
    assert json.loads(output.content) == {"n": 1}


async def test_generator_tools_report_preliminary_results_and_end_with_the_last() -> None:
    seen: list[object] = []

    async def execute(input: Any, context: ToolContext) -> AsyncIterator[str]:
        yield "working"
        yield "done"

    def sync_execute(input: Any, context: ToolContext) -> Iterator[str]:
        yield "a"
        yield "b"

    for fn, last in ((execute, "done"), (sync_execute, "b")):
        tool = tool_running(fn)
        context = ExecutionContext(
            tool=tool, tool_context=ToolContext(tool_call_id="c", tool_name="probe"), on_preliminary=seen.append
        )
        assert (await run_tool(ToolCall(tool_call_id="c", tool_name="probe"), context)).content == last
    assert seen == ["working", "done", "a", "b"]


async def test_to_model_output_decides_what_the_model_sees() -> None:
    output = await run(lambda input, context: {"rows": 3}, to_model_output=lambda value: f"{value['rows']} rows")
    assert output == ToolOutput("3 rows")


async def test_execute_through_the_hook_facade_uses_the_default_executor() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    tool = tool_running(lambda input, context: f"hello {context.tool_call_id}")
    context = ExecutionContext(tool=tool, tool_context=ToolContext(tool_call_id="c9", tool_name="probe"))
    output = await manager.hooks.execute_tool(ToolCall(tool_call_id="c9", tool_name="probe"), context)
    assert output == ToolOutput("hello c9")


# -- truncation ----------------------------------------------------------------------------


async def test_results_over_the_limit_are_cut_with_a_marker_saying_how_much() -> None:
    text = "a" * (MAX_OUTPUT_CHARS + 1234)
    output = await run(lambda input, context: text)
    kept, marker = output.content.split("\n\n[output truncated: ")
    assert kept == "a" * MAX_OUTPUT_CHARS
    assert marker == f"1234 of {MAX_OUTPUT_CHARS + 1234} characters omitted]"


async def test_results_at_the_limit_are_untouched() -> None:
    text = "b" * MAX_OUTPUT_CHARS
    assert (await run(lambda input, context: text)).content == text


async def test_truncation_applies_to_tool_output_and_mapping_results() -> None:
    long = "c" * (MAX_OUTPUT_CHARS + 10)
    for result in (ToolOutput(long, is_error=True), {"content": long, "isError": True}):
        output = await run(lambda input, context, result=result: result)
        assert output.is_error
        assert output.content.endswith("[output truncated: 10 of 100010 characters omitted]")


def test_truncation_cuts_on_character_boundaries() -> None:
    # Astral characters are one code point each: never half of one.
    text = "😀" * 10
    cut = truncate_text(text, 4)
    assert cut.startswith("😀😀😀😀\n\n[output truncated: 6 of 10")
    cut.encode("utf-8")


def test_truncation_does_not_split_a_letter_from_its_accent() -> None:
    text = "abcde\u0301fgh"  # "é" written as e + combining acute at index 5
    cut = truncate_text(text, 5)
    assert cut.startswith("abcd\n\n")  # the e goes with its accent
    assert "[output truncated: 5 of 9 characters omitted]" in cut


def test_truncation_does_not_split_a_zero_width_joiner_sequence() -> None:
    family = "👨\u200d👩\u200d👧"
    cut = truncate_text("ab" + family, 4)  # the limit falls inside the family emoji
    assert cut.startswith("ab\n\n")


def test_truncation_of_a_long_combining_run_still_cuts() -> None:
    text = "a" + "\u0301" * 100
    cut = truncate_text(text, 50)
    assert cut.startswith("a" + "\u0301" * 49 + "\n\n")


def test_truncation_limit_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="truncation limit must be >= 0"):
        truncate_text("abc", -1)


# -- serialization never breaks ------------------------------------------------------------

BAD_TEXTS: list[object] = [
    b"\xff\xfe invalid utf-8 \xc3",
    "lone \udc80 surrogate",
    "high \ud83d alone",
    b"ok".decode() + "\udcff",
    {"content": "mapping \udcaa content"},
    {"key \ud800": "value \udfff"},
    ["list", "\ud800"],
    ToolOutput("direct \udc00 construction"),
]


@pytest.mark.parametrize("result", BAD_TEXTS)
async def test_undecodable_output_never_breaks_serialization(result: object) -> None:
    output = await run(lambda input, context: result)
    data = serializes(output)
    assert "\ufffd" in data.decode("utf-8")


def test_a_tool_output_built_directly_always_serializes() -> None:
    output = ToolOutput("made \udc00 by hand")
    assert output.content == "made \ufffd by hand"
    serializes(output)
    assert ToolOutput(b"\xffraw").content == "\ufffdraw"


def test_a_valid_surrogate_pair_is_joined_not_replaced() -> None:
    assert sanitize_text("smile \ud83d\ude00") == "smile 😀"


def test_bytes_are_decoded_with_replacement() -> None:
    assert sanitize_text(b"a\xffb") == "a\ufffdb"
    assert sanitize_text(bytearray(b"ok")) == "ok"


def test_sanitize_text_refuses_non_text_clearly() -> None:
    with pytest.raises(TypeError, match="tool output text must be str or bytes, got int"):
        sanitize_text(3)  # type: ignore[arg-type]


def test_truncated_output_with_bad_bytes_still_serializes() -> None:
    output = normalize_output(b"\xff" * (MAX_OUTPUT_CHARS + 5))
    assert output.content.endswith("[output truncated: 5 of 100005 characters omitted]")
    serializes(output)


async def test_a_result_that_is_not_json_serializable_becomes_an_error_result() -> None:
    output = await run(lambda input, context: object())
    assert output.is_error
    assert "tool result of type object is not JSON-serializable" in output.content


# -- on_error ------------------------------------------------------------------------------


def _raise(input: Any, context: ToolContext) -> str:
    raise ValueError("disk on fire")


async def _araise(input: Any, context: ToolContext) -> str:
    raise ValueError("disk on fire")


@pytest.mark.parametrize("execute", [_raise, _araise])
async def test_on_error_return_to_model_is_the_default(execute: Callable[..., Any]) -> None:
    output = await run(execute)
    assert output == ToolOutput("Error: ValueError: disk on fire", is_error=True)


@pytest.mark.parametrize("execute", [_raise, _araise])
async def test_on_error_fail_fails_the_turn(execute: Callable[..., Any]) -> None:
    with pytest.raises(ToolExecutionError) as info:
        await run(execute, on_error="fail")
    assert info.value.tool_name == "probe"
    assert info.value.tool_call_id == "call-1"
    assert "tool 'probe' (call call-1) failed: ValueError: disk on fire" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


async def test_timeout_becomes_an_error_result_or_fails() -> None:
    import anyio

    async def slow(input: Any, context: ToolContext) -> str:
        await anyio.sleep(5)
        return "late"

    tool = tool_running(slow)
    call = ToolCall(tool_call_id="c", tool_name="probe")
    base = ToolContext(tool_call_id="c", tool_name="probe")
    output = await run_tool(call, ExecutionContext(tool=tool, tool_context=base, timeout=0.05))
    assert output.is_error and "timed out after 0.05 s" in output.content
    with pytest.raises(ToolExecutionError):
        await run_tool(call, ExecutionContext(tool=tool, tool_context=base, timeout=0.05, on_error="fail"))
