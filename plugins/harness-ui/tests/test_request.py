"""Parsing the useChat POST body."""

from __future__ import annotations

from typing import Any

import pytest
from harness_ui import BadChatRequest, parse_chat_request

from harness_core import ApprovalResponse, ToolResultContinuation


def user(text: str = "hello", id: str = "u1") -> dict[str, Any]:
    return {"id": id, "role": "user", "parts": [{"type": "text", "text": text}]}


def body(*messages: Any, **extra: Any) -> dict[str, Any]:
    return {"id": "chat-1", "messages": list(messages), "trigger": "submit-message", **extra}


def test_a_user_message_starts_a_turn() -> None:
    request = parse_chat_request(body({"id": "u1", "role": "user", "parts": [
        {"type": "step-start"}, {"type": "text", "text": "fix"}, {"type": "text", "text": "the tests"}]}))
    assert request.chat_id == "chat-1" and request.prompt == "fix\nthe tests"
    assert not request.is_continuation and request.message_id is None


def test_an_assistant_message_with_answers_continues() -> None:
    assistant = {"id": "m1", "role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "text", "text": "Running.", "state": "done"},
        {"type": "tool-bash", "toolCallId": "c1", "state": "approval-responded", "input": {},
         "providerExecuted": True, "approval": {"id": "a1", "approved": True}},
        {"type": "tool-bash", "toolCallId": "c0", "state": "output-available", "input": {}, "output": "old",
         "providerExecuted": True},
        {"type": "tool-ask", "toolCallId": "c2", "state": "output-available", "input": {}, "output": {"color": "teal"}},
        {"type": "dynamic-tool", "toolName": "ask2", "toolCallId": "c3", "state": "output-error", "input": {},
         "errorText": "user gave up"},
        {"type": "tool-ask", "toolCallId": "c4", "state": "approval-responded", "input": {},
         "approval": {"id": "a4", "approved": False, "reason": "no"}},
    ]}
    request = parse_chat_request(body(user(), assistant))
    assert request.is_continuation and request.message_id == "m1"
    assert request.approvals == (ApprovalResponse("a1", True, None), ApprovalResponse("a4", False, "no"))
    assert request.tool_results == (ToolResultContinuation("c2", {"color": "teal"}, False),
                                    ToolResultContinuation("c3", "user gave up", True))
    assert request.known_calls == {"c0", "c1", "c2", "c3", "c4"} and request.known_approvals == {"a1", "a4"}
    approvals, results = request.answers_for(["a4"], ["c3", "c9"])
    assert approvals == [ApprovalResponse("a4", False, "no")]
    assert results == [ToolResultContinuation("c3", "user gave up", True)]


@pytest.mark.parametrize(("payload", "message"), [
    ([], "the request body must be a JSON object"),
    ({"messages": [user()]}, "'id' must be a chat id"),
    ({"id": "a b", "messages": [user()]}, "'id' must be a chat id"),
    ({"id": "c", "messages": []}, "'messages' must be a non-empty list"),
    ({"id": "c", "messages": "hi"}, "'messages' must be a non-empty list"),
    ({"id": "c", "messages": [user()], "trigger": "resume"}, "'trigger' must be one of"),
    ({"id": "c", "messages": [user()], "trigger": "regenerate-message"}, "'regenerate-message' is not supported"),
    ({"id": "c", "messages": [{"role": "user", "parts": []}]}, "messages[0].id must be a string"),
    ({"id": "c", "messages": [{"id": "x", "role": "tool", "parts": []}]}, "messages[0].role must be"),
    ({"id": "c", "messages": [{"id": "x", "role": "user"}]}, "messages[0].parts must be a list"),
    ({"id": "c", "messages": [{"id": "x", "role": "user", "parts": [7]}]}, "messages[0].parts[0] must be an object"),
    ({"id": "c", "messages": [{"id": "x", "role": "user", "parts": []}]}, "the user message has no text"),
    ({"id": "c", "messages": [{"id": "x", "role": "user", "parts": [{"type": "file", "url": "u"}]}]},
     "a harness takes text from the user, got a 'file' part"),
    ({"id": "c", "messages": [{"id": "x", "role": "system", "parts": [{"type": "text", "text": "s"}]}]},
     "the last message must be a user or an assistant message"),
    ({"id": "c", "messages": [user(), {"id": "m", "role": "assistant", "parts": [{"type": "text", "text": "t"}]}]},
     "nothing to continue"),
    ({"id": "c", "messages": [user(), {"id": "m", "role": "assistant", "parts": [
        {"type": "tool-x", "toolCallId": "c1", "state": "approval-responded", "approval": {"id": "a", "approved": "yes"}}]}]},
     "messages[1].parts[0].approval.approved must be true or false"),
    ({"id": "c", "messages": [user(), {"id": "m", "role": "assistant", "parts": [
        {"type": "tool-x", "toolCallId": "c1", "state": "approval-responded"}]}]},
     "needs an 'approval' object"),
    ({"id": "c", "messages": [user(), {"id": "m", "role": "assistant", "parts": [
        {"type": "tool-x", "state": "output-available", "output": 1}]}]},
     "messages[1].parts[0].toolCallId must be a non-empty string"),
    ({"id": "c", "messages": [user(), {"id": "m", "role": "assistant", "parts": [
        {"type": "tool-x", "toolCallId": "c1", "state": "output-error"}]}]},
     "needs a string 'errorText'"),
])
def test_malformed_bodies_are_refused_precisely(payload: Any, message: str) -> None:
    with pytest.raises(BadChatRequest) as caught:
        parse_chat_request(payload)
    assert message in str(caught.value)
