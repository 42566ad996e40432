"""The scripted client's request log can be turned off for long benchmark runs (issue 17)."""

from __future__ import annotations

import anyio
from harness_builtin.conversation import (
    AssistantMessage,
    ToolCallRecord,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
)
from harness_builtin.models import (
    ModelRequest,
    ResponseDone,
    ScriptedModelClient,
    ToolCallStart,
    ToolSpec,
)

from harness_core.testing import ModelTurn, Script, ToolCallSpec

SCRIPT = Script.of(ModelTurn(tool_calls=[ToolCallSpec("echo", {"text": "a"})]), "done")
TOOLS = [ToolSpec("echo", "Echo.", {"type": "object", "properties": {"text": {"type": "string"}}})]


async def _answers(client: ScriptedModelClient) -> list[list[object]]:
    first = [UserMessage(text="go")]
    second = [*first, AssistantMessage(text="", tool_calls=(ToolCallRecord(id="c1", name="echo", arguments={"text": "a"}),)),
              ToolResultsMessage(results=(ToolResultRecord(call_id="c1", name="echo", content="a"),))]
    out = []
    for messages in (first, second):
        events = [e async for e in client.stream(ModelRequest(system="", messages=messages, tools=TOOLS))]
        out.append(events)
    return out


def test_requests_are_recorded_by_default_and_not_when_turned_off() -> None:
    recording, silent = ScriptedModelClient(SCRIPT), ScriptedModelClient(SCRIPT, record_requests=False)
    recorded = anyio.run(_answers, recording)
    unrecorded = anyio.run(_answers, silent)
    assert len(recording.requests) == 2 and silent.requests == []
    # Same answers either way: a tool call first, then the final text.
    for events in (recorded, unrecorded):
        assert any(isinstance(e, ToolCallStart) for e in events[0])
        assert not any(isinstance(e, ToolCallStart) for e in events[1])
        assert all(isinstance(e[-1], ResponseDone) for e in events)
