"""The ``useChat`` request body: what a POST to the chat endpoint asks for.

Protocol source: the ``ai`` package's ``HttpChatTransport`` (``DefaultChatTransport``),
which posts ``{"id": chatId, "messages": UIMessage[], "trigger": "submit-message" |
"regenerate-message", "messageId"?: string, ...body}``. A UI message is ``{"id", "role":
"system" | "user" | "assistant", "parts": [...], "metadata"?}``; tool parts are
``{"type": "tool-<name>" | "dynamic-tool", "toolCallId", "state", "input", "output",
"errorText", "approval": {"id", "approved", "reason"}, "providerExecuted"}``.

A harness runtime keeps its own conversation, so only the last message matters:

* a ``user`` message starts a turn with its text parts;
* an ``assistant`` message continues the paused turn: tool parts in state
  ``approval-responded`` are approval responses (keyed by ``approval.id``), client tool
  parts (not ``providerExecuted``) in ``output-available`` / ``output-error`` are tool
  results (keyed by ``toolCallId``). Which of them the paused turn is waiting for is
  decided against the session (see :meth:`ChatRequest.answers_for`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from harness_core import ApprovalResponse, ToolResultContinuation

__all__ = ["BadChatRequest", "ChatRequest", "parse_chat_request"]

_CHAT_ID: Final = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_TRIGGERS: Final = ("submit-message", "regenerate-message")


class BadChatRequest(ValueError):
    """A malformed chat request body; the message names the field (answered with 400)."""


@attrs.frozen
class ChatRequest:
    """A parsed chat request.

    Attributes:
        chat_id: the ``useChat`` chat id (the session key).
        prompt: the new user message's text, or ``None`` for a continuation.
        approvals: approval responses found in the last assistant message.
        tool_results: client tool outputs found in the last assistant message.
        message_id: the id of the assistant message a continuation extends, else ``None``.
        known_calls: every tool call id in the messages (the client already shows them).
        known_approvals: every approval id in the messages.
    """

    chat_id: str
    prompt: str | None
    approvals: tuple[ApprovalResponse, ...] = ()
    tool_results: tuple[ToolResultContinuation, ...] = ()
    message_id: str | None = None
    known_calls: frozenset[str] = frozenset()
    known_approvals: frozenset[str] = frozenset()

    @property
    def is_continuation(self) -> bool:
        """True when the request continues a paused turn."""
        return self.prompt is None

    def answers_for(self, pending_approvals: Sequence[str], pending_calls: Sequence[str],
                    ) -> tuple[list[ApprovalResponse], list[ToolResultContinuation]]:
        """The approvals and tool results the paused turn is waiting for; answers to
        anything else (already decided, executed on the server) are left out."""
        approvals = [a for a in self.approvals if a.approval_id in pending_approvals]
        results = [r for r in self.tool_results if r.tool_call_id in pending_calls]
        return approvals, results


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise BadChatRequest(message)


def _is_tool_part(part: Mapping[str, Any]) -> bool:
    kind = part.get("type")
    return isinstance(kind, str) and (kind == "dynamic-tool" or kind.startswith("tool-"))


def _user_prompt(parts: Sequence[Any], where: str) -> str:
    texts: list[str] = []
    for pos, part in enumerate(parts):
        kind = part.get("type")
        if kind == "text":
            _require(isinstance(part.get("text"), str), f"{where}.parts[{pos}].text must be a string")
            texts.append(part["text"])
        elif kind == "step-start" or (isinstance(kind, str) and kind.startswith("data-")):
            continue
        else:
            raise BadChatRequest(f"{where}.parts[{pos}]: a harness takes text from the user, got a {kind!r} part")
    prompt = "\n".join(texts)
    _require(bool(prompt.strip()), f"{where}: the user message has no text")
    return prompt


def _approval(part: Mapping[str, Any], where: str) -> ApprovalResponse:
    approval = part.get("approval")
    _require(isinstance(approval, Mapping), f"{where}: an 'approval-responded' part needs an 'approval' object")
    assert isinstance(approval, Mapping)
    approval_id = approval.get("id")
    _require(isinstance(approval_id, str) and bool(approval_id), f"{where}.approval.id must be a non-empty string")
    approved = approval.get("approved")
    _require(isinstance(approved, bool), f"{where}.approval.approved must be true or false, got {approved!r}")
    reason = approval.get("reason")
    _require(reason is None or isinstance(reason, str), f"{where}.approval.reason must be a string")
    return ApprovalResponse(str(approval_id), bool(approved), reason)


def _tool_result(part: Mapping[str, Any], state: str, where: str) -> ToolResultContinuation:
    if state == "output-available":
        _require("output" in part, f"{where}: an 'output-available' part needs an 'output'")
        return ToolResultContinuation(str(part["toolCallId"]), part["output"], False)
    error = part.get("errorText")
    _require(isinstance(error, str), f"{where}: an 'output-error' part needs a string 'errorText'")
    return ToolResultContinuation(str(part["toolCallId"]), error, True)


def _scan(messages: Sequence[Mapping[str, Any]]) -> tuple[frozenset[str], frozenset[str]]:
    calls: set[str] = set()
    approvals: set[str] = set()
    for message in messages:
        for part in message.get("parts") or ():
            if isinstance(part, Mapping) and _is_tool_part(part):
                if isinstance(part.get("toolCallId"), str):
                    calls.add(part["toolCallId"])
                approval = part.get("approval")
                if isinstance(approval, Mapping) and isinstance(approval.get("id"), str):
                    approvals.add(approval["id"])
    return frozenset(calls), frozenset(approvals)


def _continuation(message: Mapping[str, Any], where: str) -> tuple[list[ApprovalResponse], list[ToolResultContinuation]]:
    approvals: list[ApprovalResponse] = []
    results: list[ToolResultContinuation] = []
    for pos, part in enumerate(message["parts"]):
        if not _is_tool_part(part):
            continue
        at = f"{where}.parts[{pos}]"
        _require(isinstance(part.get("toolCallId"), str) and bool(part.get("toolCallId")),
                 f"{at}.toolCallId must be a non-empty string")
        state = part.get("state")
        if state == "approval-responded":
            approvals.append(_approval(part, at))
        elif state in ("output-available", "output-error") and not part.get("providerExecuted") \
                and not part.get("preliminary"):
            results.append(_tool_result(part, str(state), at))
    _require(bool(approvals or results),
             f"{where}: the last message is an assistant message with no approval responses "
             "('approval-responded' tool parts) and no client tool outputs: nothing to continue")
    return approvals, results


def parse_chat_request(body: object) -> ChatRequest:
    """Parse a ``useChat`` POST body (already decoded from JSON).

    Raises:
        BadChatRequest: the body is not an object; ``id`` is not a chat id (1-128 of
            ``A-Za-z0-9_.:-``); ``messages`` is not a non-empty list of messages with
            ``id``, ``role`` and ``parts``; ``trigger`` is unknown or
            ``regenerate-message`` (a harness cannot rewind its runtime); the last
            message is a user message without text, or an assistant message without
            answers; an answer is malformed. The message names the field.
    """
    _require(isinstance(body, Mapping), "the request body must be a JSON object")
    assert isinstance(body, Mapping)
    chat_id = body.get("id")
    _require(isinstance(chat_id, str) and bool(_CHAT_ID.match(chat_id)),
             f"'id' must be a chat id (1-128 characters of A-Z a-z 0-9 _ . : -), got {chat_id!r}")
    trigger = body.get("trigger", "submit-message")
    _require(trigger in _TRIGGERS, f"'trigger' must be one of {', '.join(_TRIGGERS)}, got {trigger!r}")
    _require(trigger != "regenerate-message",
             "'trigger' 'regenerate-message' is not supported: a harness runtime keeps its own conversation "
             "and cannot take back an answer; send a new user message instead")
    messages = body.get("messages")
    _require(isinstance(messages, list) and bool(messages), "'messages' must be a non-empty list of UI messages")
    assert isinstance(messages, list)
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        _require(isinstance(message, Mapping), f"{where} must be an object")
        _require(isinstance(message.get("id"), str), f"{where}.id must be a string")
        role = message.get("role")
        _require(role in ("system", "user", "assistant"), f"{where}.role must be system, user or assistant, got {role!r}")
        parts = message.get("parts")
        _require(isinstance(parts, list), f"{where}.parts must be a list")
        for pos, part in enumerate(parts):
            _require(isinstance(part, Mapping) and isinstance(part.get("type"), str),
                     f"{where}.parts[{pos}] must be an object with a string 'type'")
    calls, approval_ids = _scan(messages)
    index = len(messages) - 1
    last = messages[index]
    where = f"messages[{index}]"
    role = last["role"]
    if role == "user":
        return ChatRequest(str(chat_id), _user_prompt(last["parts"], where), known_calls=calls,
                           known_approvals=approval_ids)
    _require(role == "assistant", f"{where}: the last message must be a user or an assistant message, got {role!r}")
    approvals, results = _continuation(last, where)
    return ChatRequest(str(chat_id), None, tuple(approvals), tuple(results), message_id=str(last["id"]),
                       known_calls=calls, known_approvals=approval_ids)
