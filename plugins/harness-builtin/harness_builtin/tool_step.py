"""The tool step of a built-in turn: answering and running the pending step's calls.

:meth:`ToolStep.run` announces the calls (:func:`~harness_builtin.call_parts.announce`),
runs the approved built-ins as one batch (:func:`~harness_builtin.execution.run_batch`:
read-only calls in parallel) and, while some calls wait for the core's approval decisions
(after an :class:`~harness_core.adapter.AwaitingAnswers`), runs each call as soon as it is
approved (the turn has ``acts_on_each_answer``), yields their result parts (with the ``fileChange`` parts of a ``bash`` call that changed files), waits
for the host calls' results, then records every result in the history and finishes the
step. A suspended turn continues where it stopped: announced calls are not announced again,
an executed batch does not run again.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import anyio

from harness_core import (
    AwaitingAnswers,
    BuiltinExecutionContext,
    FinishStepPart,
    ToolCall,
    ToolContext,
    ToolOutput,
)

from .call_parts import announce, result_parts
from .environment import HARNESS_ID, TurnEnvironment
from .execution import ScheduledCall, execute_builtin, run_batch
from .file_changes import ChangedFilesOutput, diff, snapshot
from .live import LiveConversation
from .offer import ToolOffer
from .rich_results import record_output
from .signals import TurnSignals
from .state import CallState, PendingStep
from .tools import SETTINGS_KEY, SKILLS_KEY, WORKSPACE_KEY

__all__ = ["ToolStep"]


def _decided(pending: PendingStep, undecided: frozenset[str]) -> bool:
    """True once one of the ``undecided`` calls got its decision."""
    return any(c.status != "approval" for c in pending.calls if c.call_id in undecided)


def _runnable(pending: PendingStep) -> list[CallState]:
    """The approved built-in calls that have not run yet."""
    return [c for c in pending.calls if c.kind == "builtin" and c.status == "approved" and c.content is None]


def _waiting(pending: PendingStep) -> bool:
    return any(c.status == "approval" or (c.kind == "host" and c.status == "waiting") for c in pending.calls)


class ToolStep:
    """Runs the pending steps of one turn.

    Args:
        conversation: the live conversation (its pending step).
        offer: the tools (which calls are read-only).
        environment: the sandbox, workspace, limits and tool settings.
        signals: the turn's signals (waits and the batch are abortable).
    """

    def __init__(self, conversation: LiveConversation, offer: ToolOffer, environment: TurnEnvironment,
                 signals: TurnSignals) -> None:
        self._conversation = conversation
        self._offer = offer
        self._env = environment
        self._signals = signals
        self._validated: dict[str, Any] = {}

    def remember(self, validated: Mapping[str, Any]) -> None:
        """The validated inputs of the next step's calls, by call id (a call not in it,
        e.g. after a restore, is validated again before it runs)."""
        self._validated = dict(validated)

    async def run(self) -> AsyncIterator[object]:
        """Finish the pending step; yields its events, ending with ``finish-step``.

        Raises:
            BuiltinToolFailure: a built-in raised and ``on_error`` is ``"fail"``.
            Aborted: the turn was aborted.
        """
        pending = self._conversation.pending
        assert pending is not None
        declarations = self._offer.mcp_tools()
        for call in pending.calls:
            if not call.announced:
                for event in announce(call, declarations.get(call.name)):
                    yield event
        while any(c.status == "approval" for c in pending.calls):
            # An approved call runs at once, without waiting for the other decisions
            # (the core reads on after each answer: ``acts_on_each_answer``).
            await self._run_approved(pending)
            for part in result_parts(pending.calls):
                yield part
            undecided = frozenset(c.call_id for c in pending.calls if c.status == "approval")
            yield AwaitingAnswers()
            await self._signals.wait_until(functools.partial(_decided, pending, undecided))
        for call in pending.calls:
            if call.status in ("denied", "refused") and call.content is None:
                reason = call.reason or "denied"
                call.content = f"Execution denied: {reason}" if call.status == "denied" else f"Execution refused: {reason}"
                call.is_error = True
        if not pending.executed:
            await self._run_approved(pending)
            pending.executed = True
        for part in result_parts(pending.calls):
            yield part
        if any(c.kind == "host" and c.status == "waiting" for c in pending.calls):
            yield AwaitingAnswers()
            await self._signals.wait_until(lambda: not _waiting(pending))
        self._conversation.finish_step()
        yield FinishStepPart(finish_reason="tool-calls", usage=pending.usage)

    async def _run_approved(self, pending: PendingStep) -> None:
        """Run the approved built-ins not run yet, abortably. A step without any (host calls
        only) enters no cancel scope: with nothing to await, the guard could not abort anything."""
        runnable = _runnable(pending)
        if runnable:
            await self._signals.guard(self._execute(runnable))

    async def _execute(self, runnable: list[CallState]) -> None:
        read_only = self._offer.read_only_names()
        scheduled = [ScheduledCall(c.name in read_only, self._runner(c)) for c in runnable]
        outputs = await run_batch(scheduled, concurrency=self._env.limits.tool_concurrency)
        for call, output in zip(runnable, outputs, strict=True):
            call.status = "done"
            record_output(call, output, self._env.client)

    def _runner(self, call: CallState) -> Callable[[], Awaitable[ToolOutput]]:
        """The call's run: its execution through the core's ``harness_execute_builtin``
        hook (a wrapper may record it, or replay a recorded output without executing),
        then what the output tells the call (file changes, an MCP tool's value)."""
        env = self._env
        execute = self._execution(call)
        hook = env.execute_builtin
        is_mcp = self._offer.mcp is not None and self._offer.is_mcp(call.name)

        async def run() -> ToolOutput:
            if hook is None:
                output = await execute()
            else:
                request = ToolCall(tool_call_id=call.call_id, tool_name=call.name, input=dict(call.arguments),
                                   provider_executed=True)
                output = await hook(request, BuiltinExecutionContext(
                    harness_id=HARNESS_ID, session_id=env.session_id, execute=execute))
            if isinstance(output, ChangedFilesOutput):
                call.changes = [dict(change) for change in output.changes]
            if is_mcp:
                call.output = output.value
            return output

        return run

    def _execution(self, call: CallState) -> Callable[[], Awaitable[ToolOutput]]:
        env = self._env
        mcp = self._offer.mcp
        if mcp is not None and self._offer.is_mcp(call.name):
            deadline = env.limits.call_deadline

            async def run_mcp() -> ToolOutput:
                return await mcp.call(call.name, dict(call.arguments), timeout=deadline)

            return run_mcp
        tool = self._offer.tools[call.name]
        context = ToolContext(
            tool_call_id=call.call_id, tool_name=call.name, session_id=env.session_id,
            harness_id=HARNESS_ID, sandbox=env.sandbox,
            metadata={WORKSPACE_KEY: env.workspace, SETTINGS_KEY: env.tool_settings, SKILLS_KEY: self._offer.skills},
        )
        detect = env.detect_file_changes and call.name == "bash"
        validated = self._validated

        async def run() -> ToolOutput:
            # Validated when the response arrived; validated again after a restore.
            value = validated[call.call_id] if call.call_id in validated else tool.validate(call.arguments)
            root = env.workspace.root
            before = await anyio.to_thread.run_sync(snapshot, root) if detect else None
            output = await execute_builtin(
                tool, value, context, deadline=env.limits.call_deadline, on_error=env.limits.on_error,
            )
            if before is None:
                return output
            after = await anyio.to_thread.run_sync(snapshot, root)
            changes = tuple(change.to_json() for change in diff(before, after))
            return ChangedFilesOutput(output.content, output.is_error, output.value, exception=output.exception,
                                      changes=changes)

        return run
