"""The turn runner: reads one result slice's events, dispatches them, ends the slice.

One :class:`TurnRunner` runs per ``stream()`` / ``continue_stream()`` call. It only

* reads the adapter turn's events (never cancelling a read at a pause; see
  :mod:`harness_core.adapter`),
* dispatches them: a :class:`~harness_core.adapter.HostToolCall` to the host-call path
  (:mod:`harness_core.agent.host_call`), a :class:`~harness_core.adapter.BuiltinApprovalRequest`
  to the built-in-call path (:mod:`harness_core.agent.builtin_call`), anything else through
  ``harness_project_event``, and
* keeps the stream invariants (:mod:`harness_core.agent.emitter`): ``start`` first, balanced
  steps, ``finish`` (or ``abort``) last, one ``tool-call`` per call, at most one final
  result.

It never raises into the consumer except for cancellation: runtime failures, adapter bugs
and ``on_error="fail"`` tool errors become an ``error`` part and a ``finish`` with reason
``error``; the session returns to idle and stays usable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup

from harness_core.adapter import (
    AdapterTurn,
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PromptRequest,
    TurnEnd,
)
from harness_core.agent.answers import ApprovalResponse, ToolResultContinuation
from harness_core.agent.approval_match import policy_denial
from harness_core.agent.builtin_call import BuiltinCallPath
from harness_core.agent.emitter import StreamEmitter
from harness_core.agent.host_call import HostCallPath, normalize_continuation
from harness_core.agent.session_control import SessionControl
from harness_core.agent.slice_services import CallScheduler, SliceServices
from harness_core.agent.state import PendingApprovalState
from harness_core.agent.steer import deliver_held_steering
from harness_core.agent.stop import StopWatch
from harness_core.agent.turn_record import TurnRecord
from harness_core.agent.turn_state import TurnState
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
    ToolApprovalResponsePart,
    ToolErrorPart,
    Usage,
)
from harness_core.tools.definition import HarnessTool
from harness_core.turn_capabilities import acts_on_each_answer

__all__ = ["Mode", "SliceRequest", "TurnRunner"]

logger = logging.getLogger("harness_core")

Mode = Literal["prompt", "continue", "compact"]
_PAUSE: Literal["pause"] = "pause"
_STOPPED: Literal["stopped"] = "stopped"


class SliceRequest:
    """What one slice is asked to do.

    Args:
        mode: ``prompt`` (start a turn), ``continue`` (answer a paused turn) or ``compact``
            (a compaction turn, already started as ``compact_turn``).
        prompt: the prompt request (``prompt`` mode).
        approvals / results: the answers (``continue`` mode), already checked against the
            pending ids.
        tools_context: the tools context map for this slice (after ``prepare_call``).
        compact_turn: the adapter turn of a compaction.
        stop: the turn's stop conditions (:mod:`harness_core.agent.stop`), or ``None``.
    """

    def __init__(self, mode: Mode, *, prompt: PromptRequest | None = None,
                 approvals: Sequence[ApprovalResponse] = (), results: Sequence[ToolResultContinuation] = (),
                 tools_context: Mapping[str, Any] | None = None, compact_turn: AdapterTurn | None = None,
                 stop: StopWatch | None = None) -> None:
        self.stop = stop
        self.mode = mode
        self.prompt = prompt
        self.approvals = list(approvals)
        self.results = list(results)
        self.tools_context: Mapping[str, Any] = tools_context or {}
        self.compact_turn = compact_turn


class TurnRunner:
    """Runs one result slice; see the module docs.

    Args:
        control: the session's live state.
        request: what the slice does.
        emitter: where parts go (the slice's stream invariants).
        host_tools: the agent's host tools (for the projection context).
        on_abort: registers a callback run when the consumer aborts; returns its remover.
        abort_reason: returns the consumer's abort reason.
    """

    def __init__(self, control: SessionControl, request: SliceRequest, emitter: StreamEmitter, *,
                 host_tools: Mapping[str, HarnessTool],
                 on_abort: Callable[[Callable[[], None]], Callable[[], None]],
                 abort_reason: Callable[[], str | None]) -> None:
        self._control = control
        self._settings = control.settings
        self._request = request
        self._emitter = emitter
        self._host_tools = host_tools
        self._on_abort = on_abort
        self._abort_reason = abort_reason
        self._harness_id = control.settings.harness_id
        self._tg: TaskGroup | None = None
        self._fatal: str | None = None
        self._crashed = False
        services = SliceServices(emit=self._emit_core, spawn=self._spawn, fail=self._set_fatal,
                                 scheduler=CallScheduler(), tools_context=request.tools_context)
        self._host = HostCallPath(self._settings, services)
        self._builtin = BuiltinCallPath(self._settings, services)

    # -- services for the call paths -----------------------------------------------------

    def _emit_core(self, part: Part) -> None:
        self._emitter.emit(part, source="core")

    def _spawn(self, function: Callable[[], Coroutine[Any, Any, None]]) -> None:
        assert self._tg is not None
        self._tg.start_soon(function)

    def _set_fatal(self, message: str) -> None:
        if self._fatal is None:
            self._fatal = message
        if self._tg is not None:
            self._tg.cancel_scope.cancel()

    # -- entry point ---------------------------------------------------------------------

    async def run(self) -> None:
        """Run the slice. Raises only the cancellation of an outer scope (after cleaning up)."""
        try:
            with anyio.CancelScope() as scope:
                remove = self._on_abort(scope.cancel)
                try:
                    await self._run()
                finally:
                    remove()
            if scope.cancelled_caught:
                with anyio.CancelScope(shield=True):
                    await self._abort(self._abort_reason())
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._abort("the consumer was cancelled")
            raise
        except Exception as exc:  # an adapter or plugin bug: never let it reach the consumer
            logger.exception("harness %r: turn of session %s failed", self._harness_id, self._settings.session_id)
            while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
                exc = exc.exceptions[0]
            with anyio.CancelScope(shield=True):
                await self._fail(f"harness {self._harness_id!r}: the turn failed: {type(exc).__name__}: {exc}",
                                 "internal")
        finally:
            self._control.active = None
            self._emitter.close()

    async def _run(self) -> None:
        control, request = self._control, self._request
        self._emitter.emit(StartPart(), source="core")
        if request.mode == "continue":
            self._emitter.defer_first_step()  # one step per continuation (emitter docs)
        else:
            self._emitter.emit(StartStepPart(), source="core")
        control.state = TurnState.RUNNING
        if request.mode == "prompt":
            assert request.prompt is not None
            try:
                adapter_turn = await control.adapter_session.prompt(request.prompt)
            except Exception as exc:
                await self._fail(f"harness {self._harness_id!r} could not start the turn: {type(exc).__name__}: {exc}",
                                 "runtime-error", abort_turn=False)
                return
            self._new_turn(adapter_turn)
        elif request.mode == "compact":
            assert request.compact_turn is not None
            self._new_turn(request.compact_turn)
        turn = control.turn
        assert turn is not None
        self._emitter.turn = turn
        outcome: TurnEnd | str
        async with anyio.create_task_group() as tg:
            self._tg = tg
            read_on = False
            if request.mode == "continue":
                for refused in await deliver_held_steering(turn, self._harness_id):
                    self._emit_core(refused)
                read_on = await self._apply_answers(turn) and acts_on_each_answer(turn.adapter_turn)
            outcome = _PAUSE if turn.waiting_for_user() and not read_on else await self._pump(turn)
            if isinstance(outcome, TurnEnd) and outcome.error_type == "runtime-crashed":
                tg.cancel_scope.cancel()  # the runtime is gone: host calls still running have no one to answer
        if self._fatal is not None:
            await self._fail(self._fatal, "tool-execution")
        elif isinstance(outcome, TurnEnd):
            if self._crashed:
                await self._abort_adapter_turn(turn)
            self._end_turn(turn, outcome)
        elif outcome == _STOPPED:  # a stop condition matched: the turn stays unfinished (stop.py)
            self._finish("tool-calls", Usage())
            control.state = TurnState.STOPPED
        else:
            self._pause(turn)

    def _new_turn(self, adapter_turn: AdapterTurn) -> None:
        settings = self._settings
        projection = ProjectionContext(
            harness_id=self._harness_id, session_id=settings.session_id,
            builtins={b.native_name: b for b in settings.builtins.values()}, host_tools=dict(self._host_tools),
        )
        self._control.turn = TurnRecord(adapter_turn=adapter_turn, projection=projection)

    # -- reading events ------------------------------------------------------------------

    async def _pump(self, turn: TurnRecord) -> TurnEnd | str:
        events = turn.events()
        hooks = self._settings.hooks
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
            elif isinstance(event, BuiltinApprovalRequest):
                await self._builtin.on_request(turn, event)
            elif isinstance(event, HostToolCall):
                await self._host.on_call(turn, event.call)
            else:
                for part in hooks.project_event(event, turn.projection):
                    self._emitter.emit(part)
            stop = self._request.stop
            if stop is not None and stop.step_ended and not turn.waiting_for_user() and await stop.should_stop():
                return _STOPPED

    # -- continuing ----------------------------------------------------------------------

    async def _apply_answers(self, turn: TurnRecord) -> bool:
        """Submit the continuation's answers; True when a built-in approval was answered."""
        answered_builtin = False
        for response in self._request.approvals:
            pending = turn.pending_approvals.pop(response.approval_id)
            builtin = pending.kind == "builtin"
            answered_builtin = answered_builtin or builtin
            approved, reason = response.approved, response.reason
            # A person's approval answers "ask"; it never overrides a policy's denial.
            denial = policy_denial(pending, self._settings, self._host, self._builtin) if approved else None
            if denial is not None:
                approved, reason = False, f"approval overridden by the approval policies: {denial}"
            self._emit_core(ToolApprovalResponsePart(approval_id=response.approval_id, approved=approved,
                                                     reason=reason, provider_executed=builtin or None))
            path = self._builtin if builtin else self._host
            await path.on_approval(turn, pending, approved, reason)
        for continuation in self._request.results:
            pending_call = turn.pending_results.pop(continuation.tool_call_id)
            output = normalize_continuation(continuation.output, continuation.is_error)
            await self._host.on_client_result(turn, pending_call, output)
        return answered_builtin

    # -- endings -------------------------------------------------------------------------

    def _finish(self, reason: FinishReason, step_usage: Usage, total: Usage | None = None) -> None:
        """Close the open step, then ``finish`` with ``total`` (default: the slice's usage so far)."""
        if self._emitter.step_open:
            self._emit_core(FinishStepPart(finish_reason=reason, usage=step_usage))
        self._emit_core(FinishPart(finish_reason=reason, total_usage=total if total is not None else self._emitter.usage))

    def _end_turn(self, turn: TurnRecord, end: TurnEnd) -> None:
        reason: FinishReason = "error" if end.error else end.finish_reason
        if end.error:
            self._emit_core(ErrorPart(error=end.error, error_type=end.error_type))
        self._drop_pending(turn, f"the turn ended ({reason}) before this call was answered")
        step_usage = Usage() if self._emitter.usage_reported else end.usage
        self._finish(reason, step_usage, end.usage if end.usage != Usage() else None)
        self._control.end_turn()

    def _drop_pending(self, turn: TurnRecord, message: str) -> None:
        for pending in [*turn.pending_approvals.values(), *turn.pending_results.values()]:
            builtin = isinstance(pending, PendingApprovalState) and pending.kind == "builtin"
            self._emit_core(ToolErrorPart(tool_call_id=pending.tool_call_id, tool_name=pending.tool_name,
                                          input=pending.input, error=message, provider_executed=builtin or None))
        turn.pending_approvals.clear()
        turn.pending_results.clear()

    def _pause(self, turn: TurnRecord) -> None:
        state = turn.pause_state()
        reason: FinishReason = "awaiting-approval" if state is TurnState.AWAITING_APPROVAL else "awaiting-tool-result"
        self._finish(reason, Usage())
        self._control.state = state

    async def _abort_adapter_turn(self, turn: TurnRecord) -> None:
        with anyio.move_on_after(30):
            try:
                await turn.adapter_turn.abort()
            except Exception:
                logger.exception("harness %r: aborting the turn of session %s raised", self._harness_id,
                                 self._settings.session_id)

    async def _fail(self, message: str, error_type: str, *, abort_turn: bool = True) -> None:
        turn = self._control.turn
        if abort_turn and turn is not None:
            await self._abort_adapter_turn(turn)
        self._emit_core(ErrorPart(error=message, error_type=error_type))
        self._finish("error", Usage())
        self._control.end_turn()

    async def _abort(self, reason: str | None) -> None:
        turn = self._control.turn
        if turn is not None:
            await self._abort_adapter_turn(turn)
        self._emit_core(AbortPart(reason=reason))
        self._control.end_turn()
