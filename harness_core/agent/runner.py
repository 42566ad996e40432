"""The slice driver: runs one result slice of a turn and emits its parts.

One :class:`SliceDriver` runs per ``stream()`` / ``continue_stream()`` call. It reads the
adapter turn's events (never cancelling a read at a pause; see
:mod:`harness_core.adapter`), handles control events itself, projects everything else
through ``harness_project_event``, runs host tools through the pipeline
(:mod:`harness_core.agent.host_call`) concurrently, and keeps the stream invariants:

* every slice starts with ``start`` and ``start-step`` and ends with ``finish`` (or
  ``abort``); steps are balanced (a ``finish-step`` closes each ``start-step``);
* a tool call's ``tool-call`` part appears once, and it gets at most one final result
  (``tool-result``, ``tool-error`` or ``tool-output-denied``): a runtime echoing a result the
  agent already produced (a denial, say) is dropped;
* built-in parts use the harness-facing name and carry
  ``provider_metadata[harness_id]["nativeToolName"]`` when the runtime's name differs;
* decisions and results are keyed by call id (approval id for approvals).

The driver never raises into the consumer except for cancellation: runtime failures,
adapter bugs and ``on_error="fail"`` tool errors become an ``error`` part and a
``finish`` with reason ``error``; the session returns to idle and stays usable.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import anyio
import attrs
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectSendStream

from harness_core.adapter import (
    AdapterTurn,
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PromptRequest,
    TurnEnd,
)
from harness_core.agent.answers import (
    ApprovalResponse,
    ToolResultContinuation,
    TurnState,
    decode_input,
)
from harness_core.agent.host_call import Outcome, ToolExecutionEnd, denied_output
from harness_core.agent.session import TurnRecord
from harness_core.agent.state import DecidedCall, PendingApprovalState, PendingToolCallState
from harness_core.approval import ApprovalStatus
from harness_core.execution import CallScheduler, ToolExecutionError
from harness_core.hook_contexts import ProjectionContext
from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishReason,
    FinishStepPart,
    Part,
    StartPart,
    StartStepPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputStartPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
    with_native_tool_name,
)
from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall
from harness_core.tools.output import ToolOutput, normalize_output

if TYPE_CHECKING:
    from harness_core.agent.results import StreamResult
    from harness_core.agent.session import HarnessSession

__all__ = ["SliceDriver"]

logger = logging.getLogger("harness_core")

_PAUSE = "pause"
_FATAL = "fatal"


def _is_final_result(part: Part) -> bool:
    if isinstance(part, ToolResultPart):
        return not part.preliminary
    return isinstance(part, ToolErrorPart | ToolOutputDeniedPart)


def _result_part(call: ToolCall, output: ToolOutput, *, provider_executed: bool = False) -> Part:
    if output.is_error:
        return ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                             error=output.content, provider_executed=provider_executed or None)
    value = output.value if output.value is not None else output.content
    return ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                          output=value, provider_executed=provider_executed or None)


Mode = Literal["prompt", "continue", "compact"]


class SliceDriver:
    """Runs one result slice; see the module docs.

    Args:
        session: the session.
        result: the :class:`~harness_core.agent.results.StreamResult` (for abort requests).
        send: where parts go.
        mode: ``prompt`` (start a turn), ``continue`` (answer a paused turn) or
            ``compact`` (a compaction turn, already started as ``compact_turn``).
        prompt: the prompt text (``prompt`` mode).
        approvals / results: the answers (``continue`` mode), already checked against the
            pending ids.
        contexts: the tools context map for this slice (after ``prepare_call``).
        compact_turn: the adapter turn of a compaction.
    """

    def __init__(
        self,
        session: HarnessSession,
        result: StreamResult,
        send: MemoryObjectSendStream[Part],
        *,
        mode: Mode,
        prompt: str | None = None,
        approvals: Sequence[ApprovalResponse] = (),
        results: Sequence[ToolResultContinuation] = (),
        contexts: Mapping[str, Any] | None = None,
        compact_turn: AdapterTurn | None = None,
    ) -> None:
        self._session = session
        self._result = result
        self._send = send
        self._mode = mode
        self._prompt = prompt
        self._approvals = list(approvals)
        self._results = list(results)
        self._contexts: Mapping[str, Any] = contexts or {}
        self._compact_turn = compact_turn
        agent = session.agent
        self._hooks = agent.plugin_manager.hooks
        self._harness_id = agent.harness_id
        self._builtins_by_name: dict[str, BuiltinTool] = {b.name: b for b in agent.builtins.values()}
        self._builtins_by_native: dict[str, BuiltinTool] = {b.native_name: b for b in agent.builtins.values()}
        self._setup = session._setup
        self._step_open = False
        self._slice_usage = Usage()
        self._usage_reported = False
        self._scheduler = CallScheduler()
        self._tg: TaskGroup | None = None
        self._fatal: str | None = None
        self._crashed = False
        self._turn: TurnRecord | None = session._turn

    # -- emission ------------------------------------------------------------------------

    def _emit(self, part: Part) -> None:
        turn = self._turn
        part = self._normalize(part)
        if turn is not None and isinstance(part, ToolCallPart):
            if part.tool_call_id in turn.seen_calls:
                return
            turn.seen_calls.add(part.tool_call_id)
        if turn is not None and isinstance(part, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart):
            if part.tool_call_id in turn.finished_calls:
                return
            if _is_final_result(part):
                turn.finished_calls.add(part.tool_call_id)
        if isinstance(part, StartStepPart):
            if self._step_open:
                return
            self._step_open = True
        elif isinstance(part, FinishStepPart):
            if not self._step_open:
                self._send_part(StartStepPart())
            self._step_open = False
            if part.usage != Usage():
                self._usage_reported = True
            self._slice_usage = self._slice_usage + part.usage
        elif not isinstance(part, StartPart | FinishPart | AbortPart | ErrorPart) and not self._step_open:
            self._step_open = True
            self._send_part(StartStepPart())
        self._send_part(part)

    def _send_part(self, part: Part) -> None:
        # When nobody reads any more (the consumer went away), keep the session consistent.
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._send.send_nowait(part)

    def _normalize(self, part: Part) -> Part:
        """Harness-facing names and nativeToolName for built-in tool parts from projections."""
        if not isinstance(part, ToolCallPart | ToolResultPart | ToolErrorPart | ToolOutputDeniedPart
                          | ToolInputStartPart):
            return part
        if not part.provider_executed or part.tool_name in self._builtins_by_name:
            name = part.tool_name
            native = self._builtins_by_name[name].native_name if name in self._builtins_by_name else None
        else:
            builtin = self._builtins_by_native.get(part.tool_name)
            if builtin is None:
                return part
            name, native = builtin.name, builtin.native_name
            part = part.model_copy(update={"tool_name": name})
        if isinstance(part, ToolCallPart) and part.provider_executed and native and native != name:
            metadata = with_native_tool_name(part.provider_metadata, self._harness_id, name, native)
            part = part.model_copy(update={"provider_metadata": metadata})
        return part

    def _call_part(self, call: ToolCall, *, provider_executed: bool, dynamic: bool = False) -> ToolCallPart:
        return ToolCallPart(
            tool_call_id=call.tool_call_id,
            tool_name=call.tool_name,
            input=call.input,
            provider_executed=provider_executed or None,
            dynamic=dynamic or call.dynamic or None,
            provider_metadata=with_native_tool_name(
                call.provider_metadata, self._harness_id, call.tool_name, call.native_tool_name
            ),
        )

    def _close_step(self, reason: FinishReason, usage: Usage) -> None:
        if self._step_open:
            self._emit(FinishStepPart(finish_reason=reason, usage=usage))

    # -- entry point ---------------------------------------------------------------------

    async def run(self) -> None:
        """Run the slice. Raises only the cancellation of an outer scope (after cleaning up)."""
        try:
            with anyio.CancelScope() as scope:
                remove = self._result._on_abort(scope.cancel)
                try:
                    await self._run()
                finally:
                    remove()
            if scope.cancelled_caught:
                with anyio.CancelScope(shield=True):
                    await self._abort(self._result.abort_reason)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._abort("the consumer was cancelled")
            raise
        except Exception as exc:  # an adapter or plugin bug: never let it reach the consumer
            logger.exception("harness %r: turn of session %s failed", self._harness_id, self._session.session_id)
            while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
                exc = exc.exceptions[0]
            with anyio.CancelScope(shield=True):
                await self._fail(f"harness {self._harness_id!r}: the turn failed: {type(exc).__name__}: {exc}",
                                 "internal")
        finally:
            self._session._active = None
            self._send.close()

    async def _run(self) -> None:
        session = self._session
        self._emit(StartPart())
        self._emit(StartStepPart())
        session._set_state(TurnState.RUNNING)
        if self._mode == "prompt":
            assert self._prompt is not None
            request = PromptRequest(
                prompt=self._prompt,
                host_tools=session.agent._host_tool_specs(session),
                instructions=session.agent.instructions,
            )
            try:
                adapter_turn = await session._adapter_session.prompt(request)
            except Exception as exc:
                await self._fail(f"harness {self._harness_id!r} could not start the turn: {type(exc).__name__}: {exc}",
                                 "runtime-error", abort_turn=False)
                return
            self._new_turn(adapter_turn)
        elif self._mode == "compact":
            assert self._compact_turn is not None
            self._new_turn(self._compact_turn)
        turn = self._turn
        assert turn is not None
        outcome: TurnEnd | str
        async with anyio.create_task_group() as tg:
            self._tg = tg
            if self._mode == "continue":
                await self._apply_answers(turn)
            outcome = _PAUSE if turn.waiting_for_user() else await self._pump(turn)
        if self._fatal is not None:
            await self._fail(self._fatal, "tool-execution")
        elif isinstance(outcome, TurnEnd):
            if self._crashed:
                await self._abort_adapter_turn(turn)
            self._end_turn(turn, outcome)
        elif outcome == _PAUSE:
            self._pause(turn)

    def _new_turn(self, adapter_turn: AdapterTurn) -> None:
        agent = self._session.agent
        projection = ProjectionContext(
            harness_id=self._harness_id,
            session_id=self._session.session_id,
            builtins=dict(self._builtins_by_native),
            host_tools=dict(agent.host_tools),
        )
        self._turn = TurnRecord(adapter_turn=adapter_turn, projection=projection)
        self._session._turn = self._turn

    # -- reading events ------------------------------------------------------------------

    async def _pump(self, turn: TurnRecord) -> TurnEnd | str:
        events = turn.events()
        with anyio.CancelScope():
            while True:
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    return TurnEnd(finish_reason="error", error_type="protocol",
                                   error=f"harness {self._harness_id!r} ended the turn's events without a TurnEnd")
                except Exception as exc:
                    self._crashed = True
                    return TurnEnd(finish_reason="error", error_type="runtime-crashed",
                                   error=f"harness {self._harness_id!r} runtime failed: {type(exc).__name__}: {exc}")
                if isinstance(event, TurnEnd):
                    return event
                if isinstance(event, AwaitingAnswers):
                    if turn.waiting_for_user():
                        return _PAUSE
                    continue
                if isinstance(event, BuiltinApprovalRequest):
                    await self._on_builtin_approval(turn, event)
                elif isinstance(event, HostToolCall):
                    await self._on_host_call(turn, event)
                else:
                    for part in self._hooks.project_event(event, turn.projection):
                        self._emit(part)
        return _FATAL

    # -- built-in approvals --------------------------------------------------------------

    def _builtin_call(self, call: ToolCall) -> tuple[ToolCall, BuiltinTool | None]:
        builtin = self._builtins_by_name.get(call.tool_name)
        if builtin is None:
            builtin = self._builtins_by_native.get(call.native_tool_name or call.tool_name)
        if builtin is None:
            return attrs.evolve(call, provider_executed=True, dynamic=True), None
        return attrs.evolve(
            call, tool_name=builtin.name, native_tool_name=call.native_tool_name or builtin.native_name,
            provider_executed=True,
        ), builtin

    async def _on_builtin_approval(self, turn: TurnRecord, event: BuiltinApprovalRequest) -> None:
        call, builtin = self._builtin_call(event.call)
        self._emit(self._call_part(call, provider_executed=True, dynamic=builtin is None))
        decided = turn.decided.get(call.tool_call_id)
        if decided is not None:
            await self._answer_builtin(turn, event.approval_id, call, decided.status == "approved", decided.reason)
            return
        inactive = self._session.builtin_inactive_reason(call.tool_name)
        if inactive is not None:
            reason = f"built-in tool {call.tool_name!r} is inactive ({inactive}) and may not be called"
            await self._answer_builtin(turn, event.approval_id, call, False, reason)
            return
        decision = self._setup.decide_builtin(call, builtin)
        if decision.status is ApprovalStatus.USER_APPROVAL:
            pending = PendingApprovalState(
                approval_id=event.approval_id, kind="builtin", tool_call_id=call.tool_call_id,
                tool_name=call.tool_name, input=call.input, native_tool_name=call.native_tool_name,
                provider_metadata={k: dict(v) for k, v in call.provider_metadata.items()},
            )
            turn.pending_approvals[event.approval_id] = pending
            self._emit(ToolApprovalRequestPart(
                approval_id=event.approval_id, tool_call=self._call_part(call, provider_executed=True,
                                                                         dynamic=builtin is None)))
            return
        approved = decision.status is not ApprovalStatus.DENIED
        await self._answer_builtin(turn, event.approval_id, call, approved, None if approved else decision.reason)

    async def _answer_builtin(self, turn: TurnRecord, approval_id: str, call: ToolCall, approved: bool,
                              reason: str | None, *, user: bool = False) -> None:
        turn.decided[call.tool_call_id] = DecidedCall(
            status="approved" if approved else "denied", reason=reason, approval_id=approval_id if user else None
        )
        await turn.adapter_turn.submit_approval(approval_id, approved, None if approved else reason)
        if not approved:
            self._emit(ToolOutputDeniedPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                            reason=reason, provider_executed=True))

    # -- host tool calls -----------------------------------------------------------------

    async def _on_host_call(self, turn: TurnRecord, event: HostToolCall) -> None:
        call = attrs.evolve(event.call, input=decode_input(event.call.input), provider_executed=False)
        tool = self._setup.tools.get(call.tool_name)
        self._emit(self._call_part(call, provider_executed=False, dynamic=tool is None))
        decided = turn.decided.get(call.tool_call_id)
        if decided is not None and decided.status == "denied":
            await self._deny_host(turn, call, decided.reason)
            return
        # A call approved earlier (the runtime repeated it after a restore) is not asked again.
        approve = decided is None
        await self._apply_outcome(turn, call, tool, self._setup.check(call, self._contexts, approve=approve))

    async def _deny_host(self, turn: TurnRecord, call: ToolCall, reason: str | None,
                         approval_id: str | None = None) -> None:
        turn.decided[call.tool_call_id] = DecidedCall(status="denied", reason=reason, approval_id=approval_id)
        self._emit(ToolOutputDeniedPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, reason=reason))
        await turn.adapter_turn.submit_tool_result(call.tool_call_id, denied_output(reason))

    async def _apply_outcome(self, turn: TurnRecord, call: ToolCall, tool: HarnessTool | None,
                             outcome: Outcome) -> None:
        if outcome.kind == "reject-error":
            assert outcome.output is not None and outcome.message is not None
            self._emit(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                     error=outcome.message))
            await turn.adapter_turn.submit_tool_result(call.tool_call_id, outcome.output)
            if tool is not None and outcome.detail is not None:
                await self._setup.notify_end(ToolExecutionEnd(
                    call=attrs.evolve(call, input=outcome.validated if outcome.validated is not None else call.input),
                    tool=tool, session_id=self._session.session_id, output=outcome.output, error=outcome.detail,
                    tools_context=self._contexts,
                ))
        elif outcome.kind == "reject-denied":
            await self._deny_host(turn, call, outcome.message)
        elif outcome.kind == "ask":
            approval_id = f"approval-{call.tool_call_id}"
            turn.pending_approvals[approval_id] = PendingApprovalState(
                approval_id=approval_id, kind="host", tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                input=call.input, native_tool_name=call.native_tool_name,
                provider_metadata={k: dict(v) for k, v in call.provider_metadata.items()},
            )
            self._emit(ToolApprovalRequestPart(approval_id=approval_id,
                                               tool_call=self._call_part(call, provider_executed=False)))
        elif outcome.kind == "client":
            turn.pending_results[call.tool_call_id] = PendingToolCallState(
                tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                native_tool_name=call.native_tool_name,
                provider_metadata={k: dict(v) for k, v in call.provider_metadata.items()},
            )
        else:
            assert tool is not None and self._tg is not None
            self._tg.start_soon(self._execute, turn, call, tool, outcome.validated, outcome.context)

    async def _execute(self, turn: TurnRecord, call: ToolCall, tool: HarnessTool, validated: Any,
                       context: Any) -> None:
        def preliminary(value: Any) -> None:
            self._emit(ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                      output=value, preliminary=True))

        async with self._scheduler.slot(read_only=tool.read_only):
            try:
                output, error, seconds = await self._setup.execute(call, tool, validated, context, preliminary)
            except ToolExecutionError as exc:
                self._emit(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                         input=call.input, error=str(exc)))
                self._fatal = str(exc)
                assert self._tg is not None
                self._tg.cancel_scope.cancel()
                return
        self._emit(_result_part(call, output))
        try:
            await turn.adapter_turn.submit_tool_result(call.tool_call_id, output)
        except Exception as exc:
            self._fatal = (f"harness {self._harness_id!r} rejected the result of call {call.tool_call_id}: "
                           f"{type(exc).__name__}: {exc}")
            assert self._tg is not None
            self._tg.cancel_scope.cancel()
            return
        await self._setup.notify_end(ToolExecutionEnd(
            call=attrs.evolve(call, input=validated), tool=tool, session_id=self._session.session_id, output=output,
            error=error, context=context, duration=seconds, tools_context=self._contexts,
        ))

    # -- continuing ----------------------------------------------------------------------

    async def _apply_answers(self, turn: TurnRecord) -> None:
        for response in self._approvals:
            pending = turn.pending_approvals.pop(response.approval_id)
            call = ToolCall(
                tool_call_id=pending.tool_call_id, tool_name=pending.tool_name, input=pending.input,
                provider_executed=pending.kind == "builtin", native_tool_name=pending.native_tool_name,
                provider_metadata=pending.provider_metadata,
            )
            self._emit(ToolApprovalResponsePart(approval_id=response.approval_id, approved=response.approved,
                                                reason=response.reason,
                                                provider_executed=(pending.kind == "builtin") or None))
            if pending.kind == "builtin":
                await self._answer_builtin(turn, response.approval_id, call, response.approved, response.reason,
                                           user=True)
            elif not response.approved:
                await self._deny_host(turn, call, response.reason, response.approval_id)
            else:
                turn.decided[call.tool_call_id] = DecidedCall(status="approved", reason=response.reason,
                                                              approval_id=response.approval_id)
                tool = self._setup.tools.get(call.tool_name)
                await self._apply_outcome(turn, call, tool, self._setup.check(call, self._contexts, approve=False))
        for continuation in self._results:
            pending_call = turn.pending_results.pop(continuation.tool_call_id)
            call = ToolCall(tool_call_id=pending_call.tool_call_id, tool_name=pending_call.tool_name,
                            input=pending_call.input, native_tool_name=pending_call.native_tool_name)
            if isinstance(continuation.output, ToolOutput):
                output = continuation.output
            else:
                output = normalize_output(continuation.output)
            if continuation.is_error and not output.is_error:
                output = attrs.evolve(output, is_error=True)
            if output.is_error:
                self._emit(ToolErrorPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                         error=output.content))
            else:
                self._emit(ToolResultPart(tool_call_id=call.tool_call_id, tool_name=call.tool_name,
                                          input=call.input, output=continuation.output))
            await turn.adapter_turn.submit_tool_result(call.tool_call_id, output)

    # -- endings -------------------------------------------------------------------------

    def _end_turn(self, turn: TurnRecord, end: TurnEnd) -> None:
        reason: FinishReason = "error" if end.error else end.finish_reason
        if end.error:
            self._emit(ErrorPart(error=end.error, error_type=end.error_type))
        self._drop_pending(turn, f"the turn ended ({reason}) before this call was answered")
        step_usage = Usage() if self._usage_reported else end.usage
        self._close_step(reason, step_usage)
        total = end.usage if end.usage != Usage() else self._slice_usage
        self._emit(FinishPart(finish_reason=reason, total_usage=total))
        self._session._turn = None
        self._session._set_state(TurnState.IDLE)

    def _drop_pending(self, turn: TurnRecord, message: str) -> None:
        for pending in [*turn.pending_approvals.values(), *turn.pending_results.values()]:
            self._emit(ToolErrorPart(tool_call_id=pending.tool_call_id, tool_name=pending.tool_name,
                                     input=pending.input, error=message,
                                     provider_executed=(isinstance(pending, PendingApprovalState)
                                     and pending.kind == "builtin") or None))
        turn.pending_approvals.clear()
        turn.pending_results.clear()

    def _pause(self, turn: TurnRecord) -> None:
        state = turn.pause_state()
        reason: FinishReason = "awaiting-approval" if state is TurnState.AWAITING_APPROVAL else "awaiting-tool-result"
        self._close_step(reason, Usage())
        self._emit(FinishPart(finish_reason=reason, total_usage=self._slice_usage))
        self._session._set_state(state)

    async def _abort_adapter_turn(self, turn: TurnRecord) -> None:
        with anyio.move_on_after(30):
            try:
                await turn.adapter_turn.abort()
            except Exception:
                logger.exception("harness %r: aborting the turn of session %s raised", self._harness_id,
                                 self._session.session_id)

    async def _fail(self, message: str, error_type: str, *, abort_turn: bool = True) -> None:
        turn = self._session._turn
        if abort_turn and turn is not None:
            await self._abort_adapter_turn(turn)
        self._emit(ErrorPart(error=message, error_type=error_type))
        self._close_step("error", Usage())
        self._emit(FinishPart(finish_reason="error", total_usage=self._slice_usage))
        self._session._turn = None
        self._session._set_state(TurnState.IDLE)

    async def _abort(self, reason: str | None) -> None:
        turn = self._session._turn
        if turn is not None:
            await self._abort_adapter_turn(turn)
        self._emit(AbortPart(reason=reason))
        self._session._turn = None
        self._session._set_state(TurnState.IDLE)

