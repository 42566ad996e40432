"""The host-call path: one host tool call from the runtime's request to its submitted result.

Every host tool call (a :class:`~harness_core.adapter.HostToolCall` control event) goes
through these stages, in this order, all in this module:

1. **announce**: the ``tool-call`` part (the core emits it; the adapter never does);
2. **decide** (:meth:`HostCallPath.decide`, giving a typed
   :data:`~harness_core.agent.outcome.Outcome`): unknown tool → error result; inactive tool
   (``active_tools``, ``inactive_tools`` or a ``harness_filter_tools`` policy) →
   ``execution-denied``; ``tool.validate()`` failure → error result listing the problems;
   tool context invalid → a *generic* error (the detail goes to ``on_tool_execution_end``
   only); ``harness_approve_call`` → denied, user-approval (pause) or approved; a tool
   without ``execute`` → client-side (pause until the host supplies the result);
3. **emit** the parts the outcome calls for (``tool-error``, ``tool-output-denied``,
   ``tool-approval-request``; a policy's denial first gets the automatic
   ``tool-approval-request`` / ``tool-approval-response`` pair, ``is_automatic``);
4. **run** through ``harness_execute_tool`` (wrappers included), scheduled so read-only calls
   run in parallel and any other call alone, with the restricted sandbox view;
5. **submit** the result to the runtime (``submit_tool_result``) and report the execution to
   ``on_tool_execution_end``.

A continued turn enters at stage 4 (a person approved; the input is validated again) or
at stage 5 (a client-side result, submitted without a part: the consumer already has it).
"""

from __future__ import annotations

import json
import time
from typing import Any

import attrs
import pydantic

from harness_core.agent.call_settings import CallSettings, unknown_resources
from harness_core.agent.outcome import Ask, ClientSide, Denied, Outcome, Rejected, Run
from harness_core.agent.slice_services import SliceServices
from harness_core.agent.state import DecidedCall, PendingApprovalState, PendingToolCallState
from harness_core.agent.tool_context import (
    CONTEXT_ERROR_MESSAGE,
    ToolExecutionEnd,
    validate_context,
)
from harness_core.agent.turn_record import TurnRecord
from harness_core.approval import ApprovalDecision, ApprovalStatus
from harness_core.errors import ToolInputError
from harness_core.execution import ToolExecutionError
from harness_core.hook_contexts import ExecutionContext
from harness_core.parts.models import (
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    with_native_tool_name,
)
from harness_core.tools.content import TEXT_ONLY, content_items, unsupported_warnings
from harness_core.tools.definition import HarnessTool, ToolCall, ToolContext
from harness_core.tools.output import ToolOutput, normalize_output

__all__ = ["HostCallPath", "call_part", "decode_input", "normalize_continuation", "result_part"]


def decode_input(raw: Any) -> Any:
    """Decode tool input sent as a JSON string (for display in parts); other values pass through."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    return raw


def call_part(call: ToolCall, harness_id: str, *, provider_executed: bool, dynamic: bool = False) -> ToolCallPart:
    """The ``tool-call`` part announcing ``call``."""
    return ToolCallPart(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        input=call.input,
        provider_executed=provider_executed or None,
        dynamic=dynamic or call.dynamic or None,
        provider_metadata=with_native_tool_name(call.provider_metadata, harness_id, call.tool_name,
                                                call.native_tool_name),
    )


def result_part(call: ToolCall, output: ToolOutput, accepts: frozenset[str] = TEXT_ONLY,
                harness_id: str = "the runtime") -> ToolResultPart | ToolErrorPart:
    """The final result part of a host call that produced ``output``; a rich result's
    items the runtime cannot carry (``accepts``) are named in ``warnings``."""
    if output.is_error:
        return ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                             error=output.content)
    value = output.value if output.value is not None else output.content
    items = content_items(output)
    warnings = unsupported_warnings(items, accepts, f"harness {harness_id!r}") if items else ()
    return ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input, output=value,
                          warnings=warnings or None)


def _pending_metadata(call: ToolCall) -> dict[str, dict[str, Any]]:
    return {k: dict(v) for k, v in call.provider_metadata.items()}


class HostCallPath:
    """Host tool calls of one result slice (see the module docs).

    Args:
        settings: the session's call settings.
        services: the slice's emit/spawn/fail/scheduler and tools context.
    """

    def __init__(self, settings: CallSettings, services: SliceServices) -> None:
        self._settings = settings
        self._services = services

    # -- entry points --------------------------------------------------------------------

    async def on_call(self, turn: TurnRecord, call: ToolCall) -> None:
        """A :class:`~harness_core.adapter.HostToolCall` arrived: announce, decide, act."""
        if isinstance(call.input, str) or call.provider_executed is not False:
            call = attrs.evolve(call, input=decode_input(call.input), provider_executed=False)
        tool = self._settings.tools.get(call.tool_name)
        self._services.emit(call_part(call, self._settings.harness_id, provider_executed=False,
                                      dynamic=tool is None))
        decided = turn.decided.get(call.tool_call_id)
        if decided is not None and decided.status == "denied":
            await self._deny(turn, call, decided.reason)
            return
        # A call approved earlier (the runtime repeated it after a restore) is not asked again.
        await self._act(turn, call, tool, self.decide(call, approve=decided is None))

    async def on_approval(self, turn: TurnRecord, pending: PendingApprovalState, approved: bool,
                          reason: str | None) -> None:
        """A person answered the approval request of a host call."""
        call = ToolCall(tool_call_id=pending.tool_call_id, tool_name=pending.tool_name, input=pending.input,
                        native_tool_name=pending.native_tool_name, provider_metadata=pending.provider_metadata)
        if not approved:
            await self._deny(turn, call, reason, pending.approval_id)
            return
        turn.decided[call.tool_call_id] = DecidedCall(status="approved", reason=reason,
                                                      approval_id=pending.approval_id)
        await self._act(turn, call, self._settings.tools.get(call.tool_name), self.decide(call, approve=False))

    async def on_client_result(self, turn: TurnRecord, pending: PendingToolCallState, output: ToolOutput) -> None:
        """The host supplied a client-side tool's result: submit it.

        No result part is emitted: the consumer supplied the result, and the AI SDK shows a
        continuation's client-side results again in no step. The call counts as finished
        (a later result part for it is a contract violation).
        """
        turn.finished.add(pending.tool_call_id)
        await turn.adapter_turn.submit_tool_result(pending.tool_call_id, output)

    # -- decide --------------------------------------------------------------------------

    def decide(self, call: ToolCall, *, approve: bool = True) -> Outcome:
        """Stage 2 for ``call``; ``approve=False`` skips the approval hook (a person approved)."""
        settings = self._settings
        tool = settings.tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(sorted(settings.tools)) or "none"
            return Rejected(message=f"Unknown tool {call.tool_name!r}: the host has no such tool (host tools: {known}).")
        if tool.name in settings.inactive:
            return Denied(reason=f"tool {tool.name!r} is inactive ({settings.inactive[tool.name]}) and may not be called")
        try:
            validated = tool.validate(call.input)
        except ToolInputError as exc:
            return Rejected(message=str(exc), detail=exc)
        try:
            context = validate_context(tool, self._services.tools_context)
        except (LookupError, pydantic.ValidationError) as exc:
            return Rejected(message=CONTEXT_ERROR_MESSAGE.format(name=tool.name), detail=exc, validated=validated)
        if approve:
            decision = self._approve(call if validated is call.input else attrs.evolve(call, input=validated), tool)
            if decision.status is ApprovalStatus.DENIED:
                return Denied(reason=decision.reason, decision=decision)
            if decision.status is ApprovalStatus.USER_APPROVAL:
                return Ask(validated=validated, context=context, decision=decision)
        if tool.client_side:
            return ClientSide(validated=validated)
        return Run(validated=validated, context=context)

    def _approve(self, call: ToolCall, tool: HarnessTool) -> ApprovalDecision:
        try:
            resources = tool.resources_for(call.input)
        except Exception as exc:
            return unknown_resources(f"tool {tool.name!r}", exc)
        return self._settings.hooks.approve_call(call, self._settings.approval_context(tool, resources))

    # -- emit ----------------------------------------------------------------------------

    async def _act(self, turn: TurnRecord, call: ToolCall, tool: HarnessTool | None, outcome: Outcome) -> None:
        if isinstance(outcome, Rejected):
            self._services.emit(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                              input=call.input, error=outcome.message))
            output = outcome.output
            await turn.adapter_turn.submit_tool_result(call.tool_call_id, output)
            if tool is not None and outcome.detail is not None:
                validated = outcome.validated if outcome.validated is not None else call.input
                await self._settings.notify_end(ToolExecutionEnd(
                    call=attrs.evolve(call, input=validated), tool=tool, session_id=self._settings.session_id,
                    output=output, error=outcome.detail, tools_context=self._services.tools_context,
                ))
        elif isinstance(outcome, Denied):
            if outcome.decision is not None:  # a policy decided without a person: say so, as the AI SDK does
                self._emit_automatic(call, outcome.reason)
            await self._deny(turn, call, outcome.reason)
        elif isinstance(outcome, Ask):
            approval_id = f"approval-{call.tool_call_id}"
            turn.pending_approvals[approval_id] = PendingApprovalState(
                approval_id=approval_id, kind="host", tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                input=call.input, native_tool_name=call.native_tool_name, provider_metadata=_pending_metadata(call),
            )
            self._services.emit(ToolApprovalRequestPart(
                approval_id=approval_id, tool_call=call_part(call, self._settings.harness_id, provider_executed=False)))
        elif isinstance(outcome, ClientSide):
            turn.pending_results[call.tool_call_id] = PendingToolCallState(
                tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                native_tool_name=call.native_tool_name, provider_metadata=_pending_metadata(call),
            )
        else:
            assert tool is not None
            run_tool, validated, context = tool, outcome.validated, outcome.context

            async def execute() -> None:
                await self._run(turn, call, run_tool, validated, context)

            self._services.spawn(execute)

    def _emit_automatic(self, call: ToolCall, reason: str | None) -> None:
        approval_id = f"approval-{call.tool_call_id}"
        self._services.emit(ToolApprovalRequestPart(
            approval_id=approval_id, is_automatic=True,
            tool_call=call_part(call, self._settings.harness_id, provider_executed=False)))
        self._services.emit(ToolApprovalResponsePart(approval_id=approval_id, approved=False, reason=reason,
                                                     is_automatic=True))

    async def _deny(self, turn: TurnRecord, call: ToolCall, reason: str | None, approval_id: str | None = None) -> None:
        turn.decided[call.tool_call_id] = DecidedCall(status="denied", reason=reason, approval_id=approval_id)
        denial = Denied(reason=reason)
        self._services.emit(ToolOutputDeniedPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                                 reason=reason))
        await turn.adapter_turn.submit_tool_result(call.tool_call_id, denial.output)

    # -- run and submit ------------------------------------------------------------------

    async def _run(self, turn: TurnRecord, call: ToolCall, tool: HarnessTool, validated: Any, context: Any) -> None:
        settings, services = self._settings, self._services
        run_call = call if validated is call.input else attrs.evolve(call, input=validated)

        def preliminary(value: Any) -> None:
            services.emit(ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                         output=value, preliminary=True))

        execution = ExecutionContext(
            tool=tool,
            tool_context=ToolContext(tool_call_id=call.tool_call_id, tool_name=tool.name,
                                     session_id=settings.session_id, harness_id=settings.harness_id,
                                     sandbox=settings.sandbox, context=context),
            on_error=settings.on_error, on_preliminary=preliminary, timeout=settings.timeout,
        )
        async with services.scheduler.slot(read_only=tool.read_only):
            started = time.monotonic()
            try:
                output = await settings.hooks.execute_tool(run_call, execution)
            except ToolExecutionError as exc:
                services.emit(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                            input=call.input, error=str(exc)))
                await settings.notify_end(ToolExecutionEnd(
                    call=run_call, tool=tool, session_id=settings.session_id,
                    output=ToolOutput(str(exc), is_error=True), error=exc.__cause__ or exc, context=context,
                    duration=time.monotonic() - started, tools_context=services.tools_context,
                ))
                services.fail(str(exc))
                return
            seconds = time.monotonic() - started
        error = output.exception
        if error is not None:
            # The executor turned a raise (or timeout) into this error result: the callback
            # gets the exception; the runtime gets the result without it.
            output = attrs.evolve(output, exception=None)
        services.emit(result_part(call, output, settings.result_content, settings.harness_id))
        try:
            await turn.adapter_turn.submit_tool_result(call.tool_call_id, output)
        except Exception as exc:
            services.fail(f"harness {settings.harness_id!r} rejected the result of call {call.tool_call_id}: "
                          f"{type(exc).__name__}: {exc}")
            return
        if settings.on_end is not None:  # the report is built only for a listener
            await settings.notify_end(ToolExecutionEnd(
                call=run_call, tool=tool, session_id=settings.session_id, output=output,
                error=error, context=context, duration=seconds, tools_context=services.tools_context,
            ))


def normalize_continuation(output: Any, is_error: bool) -> ToolOutput:
    """The :class:`ToolOutput` a client-side result continuation submits."""
    result = output if isinstance(output, ToolOutput) else normalize_output(output)
    if is_error and not result.is_error:
        result = attrs.evolve(result, is_error=True)
    return result

