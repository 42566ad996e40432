"""Starting a result slice: answer checks, ``prepare_call``, and the part producer.

:func:`start_slice` builds the :class:`~harness_core.agent.results.StreamResult` that
``stream()`` / ``continue_stream()`` / ``compact()`` return; nothing runs until it is
consumed. The producer checks the session state again (a result may be consumed long after
it was created), runs ``prepare_call``, and drives one
:class:`~harness_core.agent.runner.TurnRunner`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

import anyio

from harness_core.adapter import PromptRequest
from harness_core.agent.answers import ApprovalResponse, ToolResultContinuation
from harness_core.agent.approval_match import check_runtime_match
from harness_core.agent.config import AgentConfig
from harness_core.agent.emitter import StreamEmitter
from harness_core.agent.features import CallFeatures, TurnFeatures
from harness_core.agent.prepare import PrepareCallOptions
from harness_core.agent.results import StreamResult
from harness_core.agent.runner import Mode, SliceRequest, TurnRunner
from harness_core.agent.session import HarnessSession
from harness_core.agent.session_opening import host_tool_specs
from harness_core.agent.stop import StopWatch
from harness_core.agent.tracing import TurnTrace
from harness_core.agent.turn_state import TurnState
from harness_core.errors import HarnessConfigurationError, TurnStateError
from harness_core.parts.models import AbortPart, FinishPart, Part, StartPart

__all__ = ["check_answers", "start_slice"]


def check_answers(session: HarnessSession, approvals: Sequence[ApprovalResponse],
                  results: Sequence[ToolResultContinuation]) -> None:
    """Refuse answers that are empty, duplicated, or not pending in ``session``'s paused turn.

    Raises:
        ValueError: nothing to continue with, or an id answered twice.
        TurnStateError: an id that is not pending, a result for a call still awaiting approval,
            or an answer whose call the runtime does not hold pending exactly as recorded
            (:func:`~harness_core.agent.approval_match.check_runtime_match`).
    """
    turn = session.control.turn
    if turn is None:
        raise TurnStateError(f"session {session.session_id!r} has no paused turn to continue")
    if not approvals and not results and session.control.state is not TurnState.STOPPED:
        raise ValueError(
            "nothing to continue with: pass tool_result_continuations and/or approval_responses "
            f"(pending approvals: {', '.join(turn.pending_approvals) or 'none'}; pending tool calls: "
            f"{', '.join(turn.pending_results) or 'none'})"
        )
    seen: set[str] = set()
    for response in approvals:
        if response.approval_id in seen:
            raise ValueError(f"approval id {response.approval_id!r} is answered twice")
        seen.add(response.approval_id)
        if response.approval_id not in turn.pending_approvals:
            raise TurnStateError(
                f"approval id {response.approval_id!r} is not pending in session {session.session_id!r} "
                f"(pending approvals: {', '.join(turn.pending_approvals) or 'none'})"
            )
    awaiting_approval = {p.tool_call_id: a for a, p in turn.pending_approvals.items()}
    for continuation in results:
        if continuation.tool_call_id in seen:
            raise ValueError(f"tool call {continuation.tool_call_id!r} has two results")
        seen.add(continuation.tool_call_id)
        if continuation.tool_call_id in awaiting_approval:
            raise TurnStateError(
                f"tool call {continuation.tool_call_id!r} still waits for its approval "
                f"({awaiting_approval[continuation.tool_call_id]!r}); answer the approval first"
            )
        if continuation.tool_call_id not in turn.pending_results:
            raise TurnStateError(
                f"tool call {continuation.tool_call_id!r} is not waiting for a result in session "
                f"{session.session_id!r} (pending tool calls: {', '.join(turn.pending_results) or 'none'})"
            )
    check_runtime_match(turn, session.control.settings, approvals, results)


async def _contexts_for(config: AgentConfig, session: HarnessSession, prompt: str | None,
                        options: Mapping[str, Any]) -> Mapping[str, Any]:
    contexts: Mapping[str, Any] = session.tools_context
    prepare = config.prepare_call
    if prepare is None:
        return contexts
    prepared = prepare(PrepareCallOptions(session=session, prompt=prompt, options=options, tools_context=contexts))
    if inspect.isawaitable(prepared):
        prepared = await prepared
    if prepared is None:
        return contexts
    if not isinstance(prepared, Mapping):
        raise TypeError(f"prepare_call must return a tools context mapping or None, got {type(prepared).__name__}")
    context_tools = config.context_tools()
    for key in prepared:
        if key not in context_tools:
            raise HarnessConfigurationError(
                f"prepare_call returned a context for {key!r}, but no host tool named {key!r} declares a "
                f"context_schema (tools taking a context: {', '.join(sorted(context_tools)) or 'none'})"
            )
    return dict(prepared)


def start_slice(
    config: AgentConfig,
    session: HarnessSession,
    mode: Mode,
    *,
    prompt: str | None = None,
    approvals: Sequence[ApprovalResponse] = (),
    results: Sequence[ToolResultContinuation] = (),
    options: Mapping[str, Any] | None = None,
    abort_signal: anyio.Event | None = None,
    features: CallFeatures | None = None,
) -> StreamResult:
    """The :class:`StreamResult` of one slice (see the module docs); ``features``: the
    call's structured output, stop conditions and mode (:mod:`harness_core.agent.features`).

    Raises:
        TypeError: ``options`` is not a mapping, or ``abort_signal`` not an :class:`anyio.Event`.
    """
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"options must be a mapping, got {type(options).__name__}")
    if abort_signal is not None and not isinstance(abort_signal, anyio.Event):
        raise TypeError(f"abort_signal must be an anyio.Event, got {type(abort_signal).__name__}")
    call_options = dict(options or {})

    def source(result: StreamResult) -> AsyncGenerator[Part, None]:
        return _produce(config, result, session, mode, prompt=prompt, approvals=approvals, results=results,
                        options=call_options, abort_signal=abort_signal, features=features or CallFeatures())

    return StreamResult(source, session=session)


async def _produce(
    config: AgentConfig,
    result: StreamResult,
    session: HarnessSession,
    mode: Mode,
    *,
    prompt: str | None,
    approvals: Sequence[ApprovalResponse],
    results: Sequence[ToolResultContinuation],
    options: Mapping[str, Any],
    abort_signal: anyio.Event | None,
    features: CallFeatures,
) -> AsyncGenerator[Part, None]:
    control = session.control
    if mode == "continue":
        session.check_can_continue()
        check_answers(session, approvals, results)
    else:
        session.check_can_prompt()
    control.active = result
    control.shown = control.state
    try:
        contexts = await _contexts_for(config, session, prompt, options)
        result.bind_tools_context(contexts)
        compact_turn = await control.adapter_session.compact() if mode == "compact" else None
    except BaseException:
        control.active = None
        control.shown = None
        raise
    prompt_request = None
    if mode != "continue" or control.features is None:
        control.features = TurnFeatures.start(features if mode == "prompt" else CallFeatures())
    else:
        control.features.continue_with(features)
    turn_features = control.features
    result.bind_output(turn_features.output)
    trace = _trace_for(session, turn_features, continued=mode == "continue")
    if mode == "prompt":
        assert prompt is not None
        output = turn_features.output
        prompt_request = PromptRequest(prompt=prompt, host_tools=host_tool_specs(config, control.settings.inactive),
                                       instructions=config.instructions, mode=turn_features.mode,
                                       output_schema=output.json_schema if output is not None else None)
    request = SliceRequest(mode, prompt=prompt_request, approvals=approvals, results=results,
                           tools_context=contexts, compact_turn=compact_turn, stop=turn_features.watch)
    send, receive = anyio.create_memory_object_stream[Part](math.inf)
    emitter = StreamEmitter(send, harness_id=config.harness_id, builtins=config.builtins,
                            on_violation=control.violations.append, display_root=control.settings.display_root,
                            on_part=_observer(turn_features.watch, trace))
    runner = TurnRunner(control, request, emitter, host_tools=config.host_tools, on_abort=result.on_abort,
                        abort_reason=lambda: result.abort_reason)

    async def drive() -> None:
        async with anyio.create_task_group() as inner:
            if abort_signal is not None:
                async def watch() -> None:
                    await abort_signal.wait()
                    result.abort("abort_signal was set")

                inner.start_soon(watch)
            await runner.run()
            inner.cancel_scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(drive)
        async with receive:
            try:
                while True:
                    # The buffered parts without a checkpoint each (receive_nowait), then
                    # one receive (a checkpoint) when the buffer is empty.
                    try:
                        part = receive.receive_nowait()
                    except anyio.WouldBlock:
                        try:
                            part = await receive.receive()
                        except anyio.EndOfStream:
                            break
                    except anyio.EndOfStream:
                        break
                    # State in step with the stream: see SessionControl.shown.
                    if isinstance(part, StartPart):
                        control.shown = TurnState.RUNNING
                    elif isinstance(part, FinishPart | AbortPart):
                        control.shown = None
                    yield part
            finally:
                control.shown = None
    if trace is not None:
        trace.slice_done(turn_over=control.state is TurnState.IDLE)


def _trace_for(session: HarnessSession, features: TurnFeatures, *, continued: bool) -> TurnTrace | None:
    """The turn's spans (telemetry), started with its first slice here."""
    telemetry = session.agent.features.telemetry
    if telemetry is not None and features.trace is None:
        control = session.control
        parent, control.trace_parent = control.trace_parent, None
        features.trace = TurnTrace(telemetry, harness_id=session.harness_id, session_id=session.session_id,
                                   parent=parent, continued=continued)
    return features.trace


def _observer(watch: StopWatch, trace: TurnTrace | None) -> Callable[[Part], None] | None:
    """What sees each part of the slice: the stop conditions and the telemetry, or ``None``
    when neither is there (the watch's conditions are set before the slice starts)."""
    if trace is None:
        return watch.observe if watch.conditions else None

    def observe(part: Part) -> None:
        watch.observe(part)
        trace.observe(part)

    return observe
