"""The live conversation keeps a running size total: its estimate equals a full rescan
(:func:`estimate_tokens`) after appends, truncation, a compaction and a restore."""

from __future__ import annotations

from typing import Any

import pytest
from harness_builtin import create_builtin_adapter
from harness_builtin.conversation import (
    AssistantMessage,
    Message,
    ReasoningBlock,
    ToolCallRecord,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
    estimate_tokens,
)
from harness_builtin.live import LiveConversation
from harness_builtin.state import CallState, PendingStep, SessionState

from harness_core import PromptRequest, StartRequest
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio

SYSTEM = "You are a test system prompt."


def _history() -> list[Message]:
    return [
        UserMessage(text="list the files, please"),
        AssistantMessage(
            text="Listing.", reasoning=(ReasoningBlock(text="I should call ls"),),
            tool_calls=(ToolCallRecord(id="c1", name="ls", arguments={"path": ".", "deep": [1, 2]}),),
        ),
        ToolResultsMessage(results=(ToolResultRecord(call_id="c1", name="ls", content="a.py\nb.py"),)),
        AssistantMessage(text="There are two files."),
        UserMessage(text="now read a.py " * 30),
    ]


def _agrees(conversation: LiveConversation) -> int:
    estimate = conversation.estimate(SYSTEM)
    assert estimate == estimate_tokens(conversation.messages, SYSTEM)
    assert conversation.estimate() == estimate_tokens(conversation.messages)
    return estimate


def test_estimate_follows_appends_truncation_and_compaction() -> None:
    conversation = LiveConversation()
    seen = [_agrees(conversation)]
    for message in _history():
        conversation.append(message)
        seen.append(_agrees(conversation))
    assert seen == sorted(seen) and seen[-1] > seen[0]  # it grew with every message
    conversation.truncate(3)
    assert len(conversation.messages) == 3
    truncated = _agrees(conversation)
    assert truncated < seen[-1]
    conversation.context_tokens = 500
    conversation.compacted(UserMessage(text="Summary: listed files.", kind="summary"), _history()[-2:])
    first = conversation.messages[0]
    assert isinstance(first, UserMessage) and first.text == "Summary: listed files."
    assert conversation.compactions == 1 and conversation.context_tokens == 0
    _agrees(conversation)


def test_estimate_follows_step_results_and_closing() -> None:
    conversation = LiveConversation(_history()[:2])
    calls = [CallState(call_id="c1", name="ls", kind="builtin", status="done", content="x" * 97),
             CallState(call_id="c2", name="bash", kind="builtin", status="approval")]
    conversation.begin_step(PendingStep(calls=calls))
    assert conversation.find_call(lambda c: c.status == "approval") is calls[1]
    conversation.close_pending("Not run: stopped.")
    assert conversation.pending is None
    last = conversation.messages[-1]
    assert isinstance(last, ToolResultsMessage)
    assert [r.content for r in last.results] == ["x" * 97, "Not run: stopped."]
    _agrees(conversation)
    conversation.begin_step(PendingStep(calls=[CallState(call_id="c3", name="ls", kind="builtin", status="done",
                                                         content="done " * 11)]))
    conversation.finish_step()
    _agrees(conversation)
    with pytest.raises(RuntimeError, match="no pending step"):
        conversation.finish_step()


@pytest.mark.parametrize("continuing", [True, False])
def test_estimate_after_a_restore(continuing: bool) -> None:
    pending = PendingStep(calls=[CallState(call_id="c9", name="bash", kind="builtin", status="approval")])
    state = SessionState(messages=_history(), pending=pending, compactions=2)
    restored = LiveConversation.from_state(SessionState.model_validate(state.model_dump(mode="json")),
                                           continuing=continuing)
    assert restored.compactions == 2
    assert (restored.pending is not None) is continuing
    assert len(restored.messages) == len(_history()) + (0 if continuing else 1)
    _agrees(restored)


def _respond() -> Any:
    steps = 0

    def respond(request: Any) -> Any:
        nonlocal steps
        if request.is_side_request:
            return "SUMMARY: listed the workspace."
        steps += 1
        if steps > 4:
            return "Finished."
        return ModelTurn("Listing " + "x" * 400, tool_calls=[ToolCallSpec("ls", {})])

    return respond


async def test_a_real_session_keeps_the_estimate_exact(harness) -> None:
    session = await harness.start(Script(respond=_respond()), compact_threshold_tokens=300, compact_keep_messages=2)
    turn = await session.prompt(PromptRequest(prompt="list things"))
    events = [event async for event in turn.events()]
    assert events[-1].finish_reason == "stop"
    conversation = session.conversation
    assert conversation.compactions >= 1  # the run compacted
    system = session.offer.system()
    assert conversation.estimate(system) == estimate_tokens(session.messages, system)
    state = await session.stop()
    again = await create_builtin_adapter(model=harness.client).start(
        StartRequest(session_id="test-session", sandbox=harness.sandbox, resume_from=state))
    assert again.messages == session.messages
    assert again.conversation.estimate(system) == estimate_tokens(again.messages, system)
