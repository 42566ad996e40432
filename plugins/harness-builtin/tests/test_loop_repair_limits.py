"""Response repair, turn limits and compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_builtin.conversation import AssistantMessage, UserMessage

from harness_core import PromptRequest
from harness_core.parts.models import (
    COMPACTION_TOOL,
    ErrorPart,
    FinishStepPart,
    ToolCallPart,
    ToolResultPart,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio

READ_ONLY = ["read", "grep", "glob", "ls"]


def of_type(events: list[object], kind: type) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]


def all_call_ids(messages: Any) -> set[str]:
    return {call.id for m in messages if isinstance(m, AssistantMessage) for call in m.tool_calls}


async def test_malformed_json_gets_a_repair_turn_with_read_only_tools(harness, workspace: Path) -> None:
    (workspace / "a.txt").write_text("A\n")
    script = [
        ModelTurn("Editing.", tool_calls=[ToolCallSpec("edit", '{"file_path": "a.txt", "old_string": "A', id="bad1")]),
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "a.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec("edit", {"file_path": "a.txt", "old_string": "A", "new_string": "B"})]),
        "Fixed.",
    ]
    events = await harness.run(script)
    invalid = [p for p in of_type(events, ToolCallPart) if p.invalid]
    assert len(invalid) == 1 and invalid[0].tool_call_id == "bad1"
    assert "not valid JSON" in (invalid[0].error or "")
    requests = harness.client.requests
    # The repair request offers only read-only tools and says what was wrong.
    assert [t.name for t in requests[1].tools] == READ_ONLY
    note = requests[1].messages[-1]
    assert isinstance(note, UserMessage) and note.kind == "repair"
    assert "call bad1 to 'edit'" in note.text and "not valid JSON" in note.text
    # The malformed call is never replayed; every later request offers every tool again.
    for request in requests[1:]:
        assert "bad1" not in all_call_ids(request.messages)
    assert "edit" in [t.name for t in requests[2].tools]
    assert (workspace / "a.txt").read_text() == "B\n"
    assert events[-1].finish_reason == "stop"


async def test_unknown_tool_and_invalid_arguments_are_repaired(harness) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("teleport", {"to": "mars"}), ToolCallSpec("read", {"path": "x"})]),
        "Sorry.",
    ]
    events = await harness.run(script)
    invalid = {p.tool_name: p.error for p in of_type(events, ToolCallPart) if p.invalid}
    assert "there is no tool named 'teleport'" in invalid["teleport"]
    assert "file_path" in invalid["read"] and "invalid arguments" in invalid["read"]
    step = of_type(events, FinishStepPart)[0]
    assert step.provider_metadata and len(step.provider_metadata["builtin"]["repair"]) == 2
    note = harness.client.requests[1].messages[-1].text
    assert "'teleport'" in note and "$" in note


async def test_repairs_are_bounded(harness) -> None:
    bad = ModelTurn(tool_calls=[ToolCallSpec("read", "{nope")])
    events = await harness.run([bad, bad, bad, bad], max_repairs=2)
    end = events[-1]
    assert end.finish_reason == "error" and end.error_type == "unusable-response"
    assert "after 2 repair turn(s)" in end.error
    assert len(harness.client.requests) == 3


async def test_host_tool_arguments_are_validated(harness) -> None:
    from harness_core import HostToolSpec

    spec = HostToolSpec("weather", "Weather", {"type": "object", "properties": {"city": {"type": "string"}},
                                                "required": ["city"], "additionalProperties": False})
    events = await harness.run([ModelTurn(tool_calls=[ToolCallSpec("weather", {"town": 3})]), "ok"],
                               start={"host_tools": [spec]})
    invalid = next(p for p in of_type(events, ToolCallPart) if p.invalid)
    assert "'city' is a required property" in (invalid.error or "")


async def test_max_steps_ends_the_turn_clearly(harness) -> None:
    loop = ModelTurn(tool_calls=[ToolCallSpec("ls", {})])
    events = await harness.run(Script(respond=lambda request: loop), max_steps=3)
    error = of_type(events, ErrorPart)[0]
    assert error.error_type == "max-steps" and "max_steps=3" in error.error
    end = events[-1]
    assert end.finish_reason == "length"
    assert len(harness.client.requests) == 3


async def test_max_tool_calls(harness) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("ls", {}), ToolCallSpec("ls", {}, id="second")]), "never"]
    session = await harness.start(script, max_tool_calls=1)
    turn = await session.prompt(PromptRequest(prompt="go"))
    events = [event async for event in turn.events()]
    error = of_type(events, ErrorPart)[0]
    assert error.error_type == "max-tool-calls" and "max_tool_calls=1" in error.error
    assert events[-1].finish_reason == "length"
    # Every call still has a result, so the conversation stays valid for the next prompt.
    results = session.messages[-1].results
    assert [r.is_error for r in results] == [True, True] and "Not run" in results[0].content
    follow = await session.prompt(PromptRequest(prompt="again"))
    assert [type(e).__name__ async for e in follow.events()][-1] == "TurnEnd"


async def test_max_turn_tokens(harness) -> None:
    loop = ModelTurn(tool_calls=[ToolCallSpec("ls", {})], usage={"input_tokens": 600, "output_tokens": 10})
    events = await harness.run(Script(respond=lambda request: loop), max_turn_tokens=1000)
    assert of_type(events, ErrorPart)[0].error_type == "max-turn-tokens"
    assert events[-1].finish_reason == "length"
    assert len(harness.client.requests) == 2


async def test_limits_are_validated() -> None:
    from harness_builtin import create_builtin_adapter

    with pytest.raises(ValueError, match="max_steps"):
        create_builtin_adapter(max_steps=0)
    with pytest.raises(ValueError, match="on_error"):
        create_builtin_adapter(on_error="explode")


def _respond_by_kind() -> Any:
    steps = 0

    def respond(request: Any) -> Any:
        # Tool-less requests are summaries; otherwise call ls four times, then stop.
        nonlocal steps
        if request.is_side_request:
            return "SUMMARY: listed the workspace several times."
        steps += 1
        if steps > 4:
            return "Finished."
        return ModelTurn("Listing " + "x" * 400, tool_calls=[ToolCallSpec("ls", {})])

    return respond


async def test_automatic_compaction(harness) -> None:
    session = await harness.start(Script(respond=_respond_by_kind()), compact_threshold_tokens=300,
                                  compact_keep_messages=2)
    turn = await session.prompt(PromptRequest(prompt="list things"))
    events = [event async for event in turn.events()]
    compactions = [p for p in of_type(events, ToolCallPart) if p.tool_name == COMPACTION_TOOL]
    assert compactions and compactions[0].dynamic and compactions[0].provider_executed
    assert compactions[0].input["trigger"] == "auto"
    result = next(p for p in of_type(events, ToolResultPart) if p.tool_name == COMPACTION_TOOL)
    assert result.output["summary"] == "SUMMARY: listed the workspace several times."
    summary_requests = [r for r in harness.client.requests if not r.tools]
    assert summary_requests and "Summarize this conversation" in summary_requests[0].messages[0].text
    # After compaction the model sees the summary instead of the older turns.
    later = harness.client.requests[-1].messages
    assert isinstance(later[0], UserMessage) and later[0].kind == "summary"
    assert events[-1].finish_reason == "stop"


async def test_compact_on_demand(harness) -> None:
    script = Script(respond=lambda r: "SUMMARY." if r.is_side_request else "Answer " + str(r.turn_index))
    session = await harness.start(script, compact_keep_messages=2)
    for prompt in ("one", "two", "three"):
        turn = await session.prompt(PromptRequest(prompt=prompt))
        _ = [event async for event in turn.events()]
    assert len(session.messages) == 6
    turn = await session.compact()
    events = [event async for event in turn.events()]
    call = of_type(events, ToolCallPart)[0]
    assert call.tool_name == COMPACTION_TOOL and call.input == {"trigger": "manual", "messagesBefore": 6,
                                                                  "tokensBefore": call.input["tokensBefore"]}
    assert of_type(events, ToolResultPart)[0].output["messagesAfter"] == 3
    assert events[-1].finish_reason == "stop"
    assert session.messages[0].kind == "summary"
    assert [m.text for m in session.messages[1:]] == ["three", "Answer 2"]


async def test_compaction_with_nothing_older_is_reported(harness) -> None:
    session = await harness.start(["hi"])
    turn = await session.compact()
    events = [event async for event in turn.events()]
    assert "skipped" in of_type(events, ToolResultPart)[0].output
