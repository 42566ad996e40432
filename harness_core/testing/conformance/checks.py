"""Stream checks of the conformance suite: the slice invariants and the part contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from harness_core.parts.models import (
    Part,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)

__all__ = ["check_automatic_denial", "check_contract", "check_stream_shape", "final_results", "parts_of"]


def parts_of(parts: Sequence[Part], kind: type[Part]) -> list[Any]:
    """The parts of ``parts`` that are instances of ``kind``."""
    return [p for p in parts if isinstance(p, kind)]


def final_results(parts: Sequence[Part], call_id: str) -> list[Part]:
    """The final result parts (result, error, denial; not preliminary) of call ``call_id``."""
    return [p for p in parts if isinstance(p, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart)
            and p.tool_call_id == call_id and not (isinstance(p, ToolResultPart) and p.preliminary)]


def check_contract(violations: Sequence[str]) -> None:
    """Fail the test when the adapter broke the contract of docs/adapters.md.

    ``violations`` are a session's :attr:`~harness_core.agent.session.HarnessSession.contract_violations`:
    a part the adapter emitted twice (a ``tool-call`` the core also emitted for a control
    event, a denial the core already emitted) or a result whose ``tool-call`` is missing.
    """
    if violations:
        pytest.fail("the adapter broke the part contract (docs/adapters.md, 'Who emits which part'):\n- "
                    + "\n- ".join(violations))


def check_stream_shape(parts: Sequence[Part]) -> None:
    """Assert the slice invariants: start first, finish (or abort) last, balanced steps,
    one ``tool-call`` per id, at most one final result per call id."""
    assert parts, "the slice produced no parts"
    assert parts[0].type == "start", f"first part is {parts[0].type!r}, not 'start'"
    assert parts[-1].type in ("finish", "abort"), f"last part is {parts[-1].type!r}, not 'finish' or 'abort'"
    depth = 0
    for part in parts:
        if part.type == "start-step":
            assert depth == 0, "start-step inside an open step"
            depth = 1
        elif part.type == "finish-step":
            assert depth == 1, "finish-step without start-step"
            depth = 0
    calls = [p.tool_call_id for p in parts if isinstance(p, ToolCallPart)]
    assert len(calls) == len(set(calls)), f"a tool-call part appears twice: {calls}"
    for call_id in set(calls):
        assert len(final_results(parts, call_id)) <= 1, f"call {call_id} has more than one final result"


def check_automatic_denial(parts: Sequence[Part], call_id: str, reason: str | None) -> None:
    """Assert the AI SDK's sequence for a call a policy denied without a person.

    ``tool-call``, then a ``tool-approval-request`` and a ``tool-approval-response``
    (``approved`` false, both ``is_automatic``, the same approval id, the policy's
    ``reason``), then ``tool-output-denied``, in this order.
    """
    kinds = (ToolCallPart, ToolApprovalRequestPart, ToolApprovalResponsePart, ToolOutputDeniedPart)
    requests = [p for p in parts if isinstance(p, ToolApprovalRequestPart) and p.tool_call.tool_call_id == call_id]
    assert len(requests) == 1, (f"call {call_id}: expected one automatic tool-approval-request, got {requests}; "
                                f"parts: {[p.type for p in parts]}")
    (request,) = requests
    assert request.is_automatic is True, f"call {call_id}: the approval request is not marked automatic"
    responses = [p for p in parts if isinstance(p, ToolApprovalResponsePart) and p.approval_id == request.approval_id]
    assert len(responses) == 1, f"call {call_id}: expected one automatic tool-approval-response, got {responses}"
    (response,) = responses
    assert response.approved is False and response.is_automatic is True and response.reason == reason, response
    sequence = [type(p) for p in parts if isinstance(p, kinds) and (
        getattr(p, "tool_call_id", None) == call_id or p is request or p is response)]
    assert sequence == list(kinds), f"call {call_id}: parts in the wrong order: {[k.__name__ for k in sequence]}"
