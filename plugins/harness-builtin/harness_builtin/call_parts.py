"""The parts and control events the adapter emits for the calls of a step.

Who emits what (docs/adapters.md, "Who emits which part"): a host call is sent as
:class:`~harness_core.adapter.HostToolCall` and a built-in call that needs approval as
:class:`~harness_core.adapter.BuiltinApprovalRequest`, with no part; the core emits their
``tool-call``, approval and denial parts. The adapter emits ``tool-call`` only for a
built-in call that needs no approval, and the result part (``tool-result`` /
``tool-error``, plus a ``fileChange`` call and result) of every built-in call that ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness_core import (
    FILE_CHANGE_TOOL,
    BuiltinApprovalRequest,
    BuiltinTool,
    HostToolCall,
    Part,
    PendingRequest,
    ToolCall,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)

from .repair import CallProblem, RawCall
from .state import CallState
from .tools import BUILTIN_KINDS

__all__ = ["announce", "dynamic", "invalid_call_parts", "pending_requests", "result_parts", "tool_call"]


def dynamic(name: str) -> bool | None:
    """Extra tools are outside the declared built-ins: their parts are dynamic (True)."""
    return None if name in BUILTIN_KINDS else True


def tool_call(call: CallState) -> ToolCall:
    """The core's view of ``call``."""
    return ToolCall(
        tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
        provider_executed=call.kind == "builtin",
    )


def pending_requests(calls: Iterable[CallState]) -> list[PendingRequest]:
    """What the runtime waits on among ``calls`` (the core checks approvals against it):
    built-in calls awaiting approval and host calls awaiting their result."""
    requests: list[PendingRequest] = []
    for call in calls:
        if call.kind == "builtin" and call.status == "approval" and call.approval_id is not None:
            requests.append(PendingRequest(kind="approval", approval_id=call.approval_id, call=tool_call(call)))
        elif call.kind == "host" and call.status == "waiting":
            requests.append(PendingRequest(kind="tool-result", call=tool_call(call)))
    return requests


def announce(call: CallState, declaration: BuiltinTool | None = None) -> list[object]:
    """What announces ``call`` (and marks it announced): a control event for a host call
    or a call that waits for approval, else its ``tool-call`` part. ``declaration``
    declares a tool learned at run time (an MCP tool) on its approval request."""
    call.announced = True
    if call.kind == "host":
        return [HostToolCall(tool_call(call))]
    if call.status == "approval" and call.approval_id is not None:
        return [BuiltinApprovalRequest(call.approval_id, tool_call(call), tool=declaration)]
    return [ToolCallPart(
        tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments), provider_executed=True,
        dynamic=dynamic(call.name),
    )]


def result_parts(calls: Iterable[CallState]) -> list[Part]:
    """The result parts of the built-in calls that have a result not reported yet (and
    marks them reported). A denied call gets none: the core emitted its denial."""
    parts: list[Part] = []
    for call in calls:
        if call.kind != "builtin" or call.reported or call.content is None:
            continue
        call.reported = True
        if call.status == "denied":
            continue
        if call.status == "refused":
            parts.append(ToolOutputDeniedPart(tool_call_id=call.call_id, tool_name=call.name,
                                              reason=call.reason, provider_executed=True))
        elif call.is_error:
            parts.append(ToolErrorPart(tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
                                       error=call.content, provider_executed=True, dynamic=dynamic(call.name)))
        else:
            parts.append(ToolResultPart(tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
                                        output=call.output if call.output is not None else call.content,
                                        provider_executed=True, dynamic=dynamic(call.name),
                                        warnings=tuple(call.warnings) or None))
        if call.changes:
            parts.extend(_file_change_parts(call))
    return parts


def _file_change_parts(call: CallState) -> list[Part]:
    change_id = f"{call.call_id}-fileChange"
    data = {"changes": call.changes, "toolCallId": call.call_id}
    return [
        ToolCallPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data,
                     provider_executed=True, dynamic=True),
        ToolResultPart(tool_call_id=change_id, tool_name=FILE_CHANGE_TOOL, input=data,
                       output=data, provider_executed=True, dynamic=True),
    ]


def invalid_call_parts(calls: Sequence[RawCall], problems: Sequence[CallProblem], *,
                       builtin_names: frozenset[str], host_names: Iterable[str]) -> list[Part]:
    """Invalid ``tool-call`` parts for every call of a response that could not be used:
    the problem of each bad call, and "not run" for the good calls beside them."""
    by_id = {p.call_id: p.problem for p in problems}
    hosts = set(host_names)
    return [
        ToolCallPart(
            tool_call_id=raw.call_id,
            tool_name=raw.name,
            input=raw.arguments,
            provider_executed=True if raw.name in builtin_names else None,
            dynamic=None if raw.name in builtin_names or raw.name in hosts else True,
            invalid=True,
            error=by_id.get(raw.call_id, "not run: another call in the same response could not be used"),
        )
        for raw in calls
    ]
