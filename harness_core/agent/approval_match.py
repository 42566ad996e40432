"""An approval runs exactly the call that was shown, and never one a policy denies.

Two checks guard every continue of a paused turn (same process or ``continue_from``):

* :func:`check_runtime_match` (before anything runs): each answered approval and
  client-side result must match, field by field (call id, tool name, input, approval id),
  a request the adapter's runtime itself holds pending, read through the optional
  :class:`~harness_core.adapter.PendingRequestsTurn` capability. The core's own record of
  the call (the one shown in the ``tool-approval-request``, or restored from continuation
  state) is not trusted alone: a continuation state whose adapter part says ``rm -f victim``
  where the core part says ``ls`` is refused with :class:`~harness_core.errors.TurnStateError`.
* :func:`policy_denial` (when the approval is applied): the approval policies run again on
  the approved call. A person's approval answers ``user-approval`` (``ask``); it never
  overrides ``denied`` or an inactive tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness_core.adapter import AdapterTurn, PendingRequest, PendingRequestsTurn
from harness_core.agent.answers import ApprovalResponse, ToolResultContinuation
from harness_core.agent.builtin_call import BuiltinCallPath
from harness_core.agent.call_settings import CallSettings
from harness_core.agent.host_call import HostCallPath, decode_input
from harness_core.agent.outcome import Denied
from harness_core.agent.state import PendingApprovalState, PendingToolCallState
from harness_core.agent.turn_record import TurnRecord
from harness_core.approval import ApprovalStatus
from harness_core.errors import TurnStateError
from harness_core.tools.definition import ToolCall

__all__ = ["check_runtime_match", "pending_call", "policy_denial"]


def _runtime_pending(adapter_turn: AdapterTurn, harness_id: str) -> Sequence[PendingRequest] | None:
    if not isinstance(adapter_turn, PendingRequestsTurn):
        return None
    try:
        requests = list(adapter_turn.pending_requests())
    except Exception as exc:
        raise TurnStateError(
            f"harness {harness_id!r} could not report what its runtime holds pending "
            f"({type(exc).__name__}); refusing to continue"
        ) from None
    for request in requests:
        if not isinstance(request, PendingRequest):
            raise TurnStateError(
                f"harness {harness_id!r} reported a pending request of type {type(request).__name__}, "
                "not PendingRequest; refusing to continue"
            )
    return requests


def _names(settings: CallSettings, call: ToolCall, builtin: bool) -> set[str]:
    """Every name ``call`` may be known by: its own, and for a built-in both the common and
    native name of its declaration."""
    names = {call.tool_name}
    if call.native_tool_name:
        names.add(call.native_tool_name)
    if builtin:
        for tool in settings.builtins.values():
            if tool.name in names or tool.native_name in names:
                names.update((tool.name, tool.native_name))
    return names


def _mismatch(settings: CallSettings, pending: PendingToolCallState, request: PendingRequest,
              builtin: bool) -> str | None:
    call = request.call
    if call.tool_call_id != pending.tool_call_id:
        return f"call id {call.tool_call_id!r} instead of {pending.tool_call_id!r}"
    if pending.tool_name not in _names(settings, call, builtin):
        return f"tool {call.tool_name!r} instead of {pending.tool_name!r}"
    runtime_input: Any = decode_input(call.input) if not builtin else call.input
    if runtime_input != pending.input:
        return "an input that differs from the one shown"
    return None


def check_runtime_match(turn: TurnRecord, settings: CallSettings, approvals: Sequence[ApprovalResponse],
                        results: Sequence[ToolResultContinuation]) -> None:
    """Refuse answers whose call the runtime does not hold pending exactly as recorded.

    Args:
        turn: the paused turn (its ``pending_approvals`` / ``pending_results`` are the calls
            shown to the application).
        settings: the session's call settings (built-in names).
        approvals: approval responses, already checked to be pending in ``turn``.
        results: client-side results, already checked to be pending in ``turn``.

    Raises:
        TurnStateError: the runtime holds no matching request (other call id, tool name,
            input or approval id), or its adapter failed to report them. Nothing has run.
    """
    requests = _runtime_pending(turn.adapter_turn, settings.harness_id)
    if requests is None:
        return
    by_approval = {r.approval_id: r for r in requests if r.kind == "approval" and r.approval_id is not None}
    by_call = {r.call.tool_call_id: r for r in requests if r.kind == "tool-result"}
    answered: list[tuple[str, PendingToolCallState, PendingRequest | None, bool]] = []
    for response in approvals:
        approval = turn.pending_approvals[response.approval_id]
        builtin = approval.kind == "builtin"
        request = by_approval.get(approval.approval_id) if builtin else by_call.get(approval.tool_call_id)
        answered.append((f"approval {response.approval_id!r}", approval, request, builtin))
    for continuation in results:
        pending_result = turn.pending_results[continuation.tool_call_id]
        answered.append((f"tool call {continuation.tool_call_id!r}", pending_result,
                         by_call.get(pending_result.tool_call_id), False))
    for what, pending, request, builtin in answered:
        if request is None:
            raise TurnStateError(
                f"{what} ({pending.tool_name!r}) is not pending in harness {settings.harness_id!r}'s runtime; "
                "the continuation state does not match the runtime, nothing was run"
            )
        problem = _mismatch(settings, pending, request, builtin)
        if problem is not None:
            raise TurnStateError(
                f"{what}: the runtime holds {problem}; the continuation state does not match the call the "
                "runtime would run, nothing was run"
            )


def pending_call(pending: PendingApprovalState) -> ToolCall:
    """The :class:`ToolCall` recorded for an approval request."""
    return ToolCall(tool_call_id=pending.tool_call_id, tool_name=pending.tool_name, input=pending.input,
                    provider_executed=pending.kind == "builtin", native_tool_name=pending.native_tool_name,
                    provider_metadata=pending.provider_metadata)


def policy_denial(pending: PendingApprovalState, settings: CallSettings, host: HostCallPath,
                  builtin: BuiltinCallPath) -> str | None:
    """The denial reason when the approval policies deny an approved call, else ``None``.

    The permission mode, ``tool_approval`` and every ``harness_approve_call`` run again,
    merged as for a new call; ``user-approval`` counts as answered by the person's approval.
    An inactive tool is denied. An error in a policy denies (the policies fail closed).
    """
    call = pending_call(pending)
    if pending.kind == "builtin":
        identified, tool = builtin.identify(call)
        inactive = settings.builtin_inactive_reason(identified.tool_name)
        if inactive is not None:
            return f"built-in tool {identified.tool_name!r} is inactive ({inactive}) and may not be called"
        decision = builtin.decide(identified, tool)
        if decision.status is ApprovalStatus.DENIED:
            return decision.reason or f"the approval policies deny built-in tool {identified.tool_name!r}"
        return None
    outcome = host.decide(call)
    if isinstance(outcome, Denied):
        return outcome.reason or f"the approval policies deny tool {call.tool_name!r}"
    return None
