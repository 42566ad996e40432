"""One-shot runs: a prompt in a fresh session, approvals answered by a callback."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from harness_core.agent.answers import ApprovalResponse
from harness_core.agent.results import GenerateResult, collect_parts
from harness_core.agent.turn_state import TurnState
from harness_core.parts.models import Part, ToolApprovalRequestPart
from harness_core.sandbox import Sandbox

if TYPE_CHECKING:
    from harness_core.agent.harness_agent import HarnessAgent

__all__ = ["ApproveCallback", "run_prompt"]

ApproveCallback = Callable[
    [ToolApprovalRequestPart],
    "bool | tuple[bool, str | None] | ApprovalResponse | Awaitable[bool | tuple[bool, str | None] | ApprovalResponse]",
]
"""Decides one approval request for :meth:`HarnessAgent.run`: True/False, ``(approved, reason)``
or an :class:`~harness_core.agent.answers.ApprovalResponse`."""


async def run_prompt(
    agent: HarnessAgent,
    prompt: str,
    *,
    approve: ApproveCallback | None,
    session_id: str | None,
    sandbox: Sandbox | None,
    tools_context: Mapping[str, Any] | None,
    options: Mapping[str, Any] | None,
    max_continuations: int,
) -> GenerateResult:
    """What :meth:`HarnessAgent.run` does (see its docstring)."""
    parts: list[Part] = []
    async with await agent.create_session(session_id=session_id, sandbox=sandbox,
                                          tools_context=tools_context) as session:
        result = await agent.generate(session=session, prompt=prompt, options=options)
        parts.extend(result.parts)
        rounds = 0
        while (approve is not None and session.state is TurnState.AWAITING_APPROVAL
               and rounds < max_continuations):
            rounds += 1
            requests = [r for r in result.approval_requests if r.approval_id in session.pending_approvals]
            responses = [await _decide(approve, request) for request in requests]
            result = await agent.continue_generate(session=session, approval_responses=responses, options=options)
            parts.extend(result.parts)
    return collect_parts(parts)


async def _decide(approve: ApproveCallback, request: ToolApprovalRequestPart) -> ApprovalResponse:
    decision: Any = approve(request)
    if inspect.isawaitable(decision):
        decision = await decision
    if isinstance(decision, ApprovalResponse):
        return decision
    if isinstance(decision, bool):
        return ApprovalResponse(request.approval_id, decision)
    if isinstance(decision, tuple) and len(decision) == 2 and isinstance(decision[0], bool):
        return ApprovalResponse(request.approval_id, decision[0], decision[1])
    raise TypeError(
        f"approve() must return a bool, (bool, reason) or ApprovalResponse for approval {request.approval_id!r}, "
        f"got {decision!r}"
    )
