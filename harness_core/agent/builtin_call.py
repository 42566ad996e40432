"""The built-in-call path: one runtime built-in call from its approval request to its answer.

A built-in call reaches the core only when the runtime asks before running it (a
:class:`~harness_core.adapter.BuiltinApprovalRequest`; built-ins the runtime runs without
asking are projected by the adapter itself). The path, all in this module:

1. **announce**: the ``tool-call`` part, provider-executed, under the harness-facing name
   with ``nativeToolName`` (the core emits it; the adapter never does for this call);
2. **decide**: a decision already taken for this call (a restored turn), an inactive
   built-in (filtered through approvals: denied without approval parts, as the AI SDK's
   "Harness Tools" page specifies), else ``harness_approve_call`` (the permission mode and
   every policy, merged);
3. **emit**: ``tool-approval-request`` for user-approval (the turn pauses); on a policy's
   denial the automatic pair (``tool-approval-request`` and ``tool-approval-response``, both
   ``is_automatic``, approved false) then ``tool-output-denied``; an inactive built-in gets
   ``tool-output-denied`` alone;
4. **submit** the decision with ``submit_approval``; the runtime runs the call and the adapter
   projects its result.

A continued turn enters at stage 4 with a person's decision.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from harness_core.adapter import BuiltinApprovalRequest
from harness_core.agent.call_settings import CallSettings, unknown_resources
from harness_core.agent.host_call import call_part
from harness_core.agent.slice_services import SliceServices
from harness_core.agent.state import DecidedCall, PendingApprovalState
from harness_core.agent.turn_record import TurnRecord
from harness_core.approval import ApprovalDecision, ApprovalStatus
from harness_core.parts.models import (
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolOutputDeniedPart,
)
from harness_core.tools.definition import BuiltinTool, ToolCall

__all__ = ["BuiltinCallPath"]


class BuiltinCallPath:
    """Built-in approval requests of one result slice (see the module docs).

    Args:
        settings: the session's call settings.
        services: the slice's emit function (the other services are for host calls).
    """

    def __init__(self, settings: CallSettings, services: SliceServices) -> None:
        self._settings = settings
        self._services = services
        self._by_native = {b.native_name: b for b in settings.builtins.values()}

    def identify(self, call: ToolCall, declared: BuiltinTool | None = None) -> tuple[ToolCall, BuiltinTool | None]:
        """``call`` under its harness-facing name, and its declaration (``None`` if undeclared).

        ``declared`` is the runtime's own declaration of a tool learned at run time (an MCP
        tool); it is used when no declared built-in matches, and the call stays dynamic.
        """
        builtin = self._settings.builtins.get(call.tool_name)
        if builtin is None:
            builtin = self._by_native.get(call.native_tool_name or call.tool_name)
        if builtin is None:
            return attrs.evolve(call, provider_executed=True, dynamic=True), declared
        return attrs.evolve(
            call, tool_name=builtin.name, native_tool_name=call.native_tool_name or builtin.native_name,
            provider_executed=True,
        ), builtin

    async def on_request(self, turn: TurnRecord, event: BuiltinApprovalRequest) -> None:
        """The runtime asks whether it may run a built-in call."""
        call, builtin = self.identify(event.call, event.tool)
        dynamic = call.dynamic or builtin is None
        self._services.emit(call_part(call, self._settings.harness_id, provider_executed=True, dynamic=dynamic))
        decided = turn.decided.get(call.tool_call_id)
        if decided is not None:
            await self._answer(turn, event.approval_id, call, decided.status == "approved", decided.reason)
            return
        inactive = self._settings.builtin_inactive_reason(call.tool_name)
        if inactive is not None:
            reason = f"built-in tool {call.tool_name!r} is inactive ({inactive}) and may not be called"
            await self._answer(turn, event.approval_id, call, False, reason)
            return
        decision = self.decide(call, builtin)
        if decision.status is ApprovalStatus.USER_APPROVAL:
            turn.pending_approvals[event.approval_id] = PendingApprovalState(
                approval_id=event.approval_id, kind="builtin", tool_call_id=call.tool_call_id,
                tool_name=call.tool_name, input=call.input, native_tool_name=call.native_tool_name,
                provider_metadata={k: dict(v) for k, v in call.provider_metadata.items()},
            )
            self._services.emit(ToolApprovalRequestPart(
                approval_id=event.approval_id,
                tool_call=call_part(call, self._settings.harness_id, provider_executed=True, dynamic=dynamic),
            ))
            return
        approved = decision.status is not ApprovalStatus.DENIED
        if not approved:  # a policy decided without a person: the automatic pair, as the AI SDK does
            self._services.emit(ToolApprovalRequestPart(
                approval_id=event.approval_id, is_automatic=True,
                tool_call=call_part(call, self._settings.harness_id, provider_executed=True, dynamic=dynamic)))
            self._services.emit(ToolApprovalResponsePart(approval_id=event.approval_id, approved=False,
                                                         reason=decision.reason, provider_executed=True,
                                                         is_automatic=True))
        await self._answer(turn, event.approval_id, call, approved, None if approved else decision.reason)

    def decide(self, call: ToolCall, tool: BuiltinTool | None) -> ApprovalDecision:
        """Every policy's decision on a built-in call, merged."""
        settings = self._settings
        try:
            resources = tool.resources_for(call.input) if tool is not None and isinstance(call.input, Mapping) else None
        except Exception as exc:
            return unknown_resources(f"built-in {call.tool_name!r}", exc)
        return settings.hooks.approve_call(call, settings.approval_context(tool, resources))

    async def on_approval(self, turn: TurnRecord, pending: PendingApprovalState, approved: bool,
                          reason: str | None) -> None:
        """A person answered the approval request of a built-in call."""
        call = ToolCall(tool_call_id=pending.tool_call_id, tool_name=pending.tool_name, input=pending.input,
                        provider_executed=True, native_tool_name=pending.native_tool_name,
                        provider_metadata=pending.provider_metadata)
        await self._answer(turn, pending.approval_id, call, approved, reason, user=True)

    async def _answer(self, turn: TurnRecord, approval_id: str, call: ToolCall, approved: bool,
                      reason: str | None, *, user: bool = False) -> None:
        turn.decided[call.tool_call_id] = DecidedCall(
            status="approved" if approved else "denied", reason=reason, approval_id=approval_id if user else None
        )
        await turn.adapter_turn.submit_approval(approval_id, approved, None if approved else reason)
        if not approved:
            self._services.emit(ToolOutputDeniedPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                                     reason=reason, provider_executed=True))
