"""Turn states and the inputs that continue a paused turn.

A session's turn moves through :class:`TurnState`::

    idle --stream(prompt)--> running --+--> idle (finished, failed or aborted)
                                       +--> awaiting-approval    --continue--> running
                                       +--> awaiting-tool-result --continue--> running
    awaiting-* --suspend_turn()--> suspended   (continue it with create_session(continue_from=...))

A paused turn continues with :class:`ToolResultContinuation` entries (results of
client-side tools) and :class:`ApprovalResponse` entries (decisions on approval
requests), passed to ``agent.continue_stream()`` as objects or as mappings
(``{"tool_call_id", "output", "is_error"}``, ``{"approval_id", "approved", "reason"}``;
camelCase keys work too), or as the trailing ``tool`` message of the AI SDK model
messages given to ``agent.stream(messages=...)`` (see :func:`parse_messages`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from harness_core.agent.outcome import denied_output

__all__ = [
    "ApprovalResponse",
    "MessagesInput",
    "ToolResultContinuation",
        "parse_approval_responses",
    "parse_messages",
    "parse_tool_results",
]


@attrs.frozen
class ToolResultContinuation:
    """The result of a client-side tool call (one without ``execute``).

    Attributes:
        tool_call_id: the pending call's id.
        output: what the tool produced: text, a JSON value or a
            :class:`~harness_core.tools.output.ToolOutput`.
        is_error: the external tool failed; the model sees an error result.
    """

    tool_call_id: str
    output: Any = None
    is_error: bool = False


@attrs.frozen
class ApprovalResponse:
    """A person's decision on a ``tool-approval-request``.

    Attributes:
        approval_id: the request's ``approval_id``.
        approved: True to run the call, False to deny it.
        reason: why; a denial's reason reaches the model.
    """

    approval_id: str
    approved: bool
    reason: str | None = None


def _key(entry: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in entry:
            return entry[name]
    return None


def parse_tool_results(entries: Iterable[ToolResultContinuation | Mapping[str, Any]] | None,
                       *, where: str = "tool_result_continuations") -> list[ToolResultContinuation]:
    """Normalize tool result continuations.

    Raises:
        ValueError: an entry without a string ``tool_call_id`` or with a non-bool
            ``is_error`` (the message names the entry's index).
        TypeError: an entry that is neither a mapping nor a :class:`ToolResultContinuation`.
    """
    out: list[ToolResultContinuation] = []
    for index, entry in enumerate(entries or ()):
        if isinstance(entry, ToolResultContinuation):
            out.append(entry)
            continue
        if not isinstance(entry, Mapping):
            raise TypeError(f"{where}[{index}]: expected a mapping or ToolResultContinuation, got {type(entry).__name__}")
        call_id = _key(entry, "tool_call_id", "toolCallId")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(f"{where}[{index}]: 'tool_call_id' must be a non-empty string, got {call_id!r}")
        is_error = _key(entry, "is_error", "isError")
        if is_error is None:
            is_error = False
        if not isinstance(is_error, bool):
            raise ValueError(f"{where}[{index}]: 'is_error' must be a bool, got {is_error!r}")
        out.append(ToolResultContinuation(call_id, entry.get("output"), is_error))
    return out


def parse_approval_responses(entries: Iterable[ApprovalResponse | Mapping[str, Any]] | None,
                             *, where: str = "approval_responses") -> list[ApprovalResponse]:
    """Normalize approval responses.

    Raises:
        ValueError: a missing ``approval_id``, a non-bool ``approved`` or a non-string
            ``reason`` (the message names the entry's index).
        TypeError: an entry that is neither a mapping nor an :class:`ApprovalResponse`.
    """
    out: list[ApprovalResponse] = []
    for index, entry in enumerate(entries or ()):
        if isinstance(entry, ApprovalResponse):
            out.append(entry)
            continue
        if not isinstance(entry, Mapping):
            raise TypeError(f"{where}[{index}]: expected a mapping or ApprovalResponse, got {type(entry).__name__}")
        approval_id = _key(entry, "approval_id", "approvalId")
        if not isinstance(approval_id, str) or not approval_id:
            raise ValueError(f"{where}[{index}]: 'approval_id' must be a non-empty string, got {approval_id!r}")
        approved = entry.get("approved")
        if not isinstance(approved, bool):
            raise ValueError(f"{where}[{index}]: 'approved' must be true or false, got {approved!r}")
        reason = entry.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ValueError(f"{where}[{index}]: 'reason' must be a string, got {reason!r}")
        out.append(ApprovalResponse(approval_id, approved, reason))
    return out


@attrs.frozen
class MessagesInput:
    """What a list of model messages asks for: a new prompt, or a continuation.

    Attributes:
        prompt: the text of the trailing user message, or ``None``.
        tool_results: results from a trailing tool message.
        approval_responses: approval responses from a trailing tool message.
    """

    prompt: str | None = None
    tool_results: tuple[ToolResultContinuation, ...] = ()
    approval_responses: tuple[ApprovalResponse, ...] = ()

    @property
    def is_continuation(self) -> bool:
        """True when the messages continue a paused turn."""
        return self.prompt is None


def _tool_result_output(output: Any) -> tuple[Any, bool]:
    """Map an AI SDK ``ToolResultOutput`` to ``(value, is_error)``."""
    if isinstance(output, Mapping) and isinstance(output.get("type"), str):
        kind = output["type"]
        if kind in ("text", "json"):
            return output.get("value"), False
        if kind in ("error-text", "error-json"):
            return output.get("value"), True
        if kind == "execution-denied":
            return denied_output(output.get("reason")).content, True
        if kind == "content":
            texts = [
                item.get("text", "") for item in output.get("value") or ()
                if isinstance(item, Mapping) and item.get("type") == "text"
            ]
            return "\n".join(texts), False
        raise ValueError(
            f"tool-result output type {kind!r} is not one of text, json, error-text, error-json, "
            "execution-denied, content"
        )
    return output, False


def _user_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts: list[str] = []
        for pos, part in enumerate(content):
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise ValueError(
                    f"messages[{index}].content[{pos}]: only text parts can be sent to a harness, got {kind!r}"
                )
        return "\n".join(texts)
    raise ValueError(f"messages[{index}].content: expected a string or a list of text parts")


def parse_messages(messages: object) -> MessagesInput:
    """Read what AI SDK model messages ask of a harness session.

    A harness runtime keeps its own conversation, so only the **trailing** message
    matters: a ``user`` message starts a new turn with its text; a ``tool`` message
    carrying ``tool-result`` parts (``toolCallId``, ``output`` as an AI SDK
    ``ToolResultOutput`` such as ``{"type": "json", "value": ...}`` or a plain value)
    and/or ``tool-approval-response`` parts (``approvalId``, ``approved``, ``reason``)
    continues the paused turn, as the AI SDK's ``HarnessAgent`` does.

    Raises:
        ValueError: no messages, a trailing message of another role, a non-text user
            part, or a malformed tool part (the message names its index).
    """
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise ValueError("messages must be a list of model messages (mappings with 'role' and 'content')")
    messages = list(messages)
    if not messages:
        raise ValueError("messages is empty: pass at least one user message, or a tool message to continue")
    index = len(messages) - 1
    last = messages[index]
    if not isinstance(last, Mapping):
        raise ValueError(f"messages[{index}]: expected a mapping, got {type(last).__name__}")
    role = last.get("role")
    if role == "user":
        return MessagesInput(prompt=_user_text(last.get("content"), index))
    if role != "tool":
        raise ValueError(
            f"messages[{index}]: the trailing message must be a 'user' message (new turn) or a 'tool' "
            f"message (continue a paused turn), got role {role!r}"
        )
    content = last.get("content")
    if not isinstance(content, Sequence) or isinstance(content, str):
        raise ValueError(f"messages[{index}].content: a tool message's content must be a list of parts")
    results: list[Mapping[str, Any]] = []
    approvals: list[Mapping[str, Any]] = []
    for pos, part in enumerate(content):
        if not isinstance(part, Mapping):
            raise ValueError(f"messages[{index}].content[{pos}]: expected a mapping")
        kind = part.get("type")
        if kind == "tool-result":
            if "output" not in part:
                legacy = " (AI SDK v4's 'result' is now 'output')" if "result" in part else ""
                raise ValueError(
                    f"messages[{index}].content[{pos}]: a 'tool-result' part needs an 'output'{legacy}; "
                    "the result would otherwise be lost"
                )
            try:
                value, is_error = _tool_result_output(part.get("output"))
            except ValueError as exc:
                raise ValueError(f"messages[{index}].content[{pos}].output: {exc}") from None
            results.append({"tool_call_id": _key(part, "toolCallId", "tool_call_id"), "output": value,
                            "is_error": is_error})
        elif kind == "tool-approval-response":
            approvals.append({"approval_id": _key(part, "approvalId", "approval_id"),
                              "approved": part.get("approved"), "reason": part.get("reason")})
        else:
            raise ValueError(
                f"messages[{index}].content[{pos}]: expected a 'tool-result' or 'tool-approval-response' part, "
                f"got {kind!r}"
            )
    return MessagesInput(
        tool_results=tuple(parse_tool_results(results, where=f"messages[{index}].content (tool-result)")),
        approval_responses=tuple(
            parse_approval_responses(approvals, where=f"messages[{index}].content (tool-approval-response)")
        ),
    )


def decode_input(raw: Any) -> Any:
    """Decode tool input sent as a JSON string for display in parts; other values pass through."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
