"""The host-tool pipeline: look up, filter, validate input, validate context, approve, execute.

Every host tool call the runtime makes goes through these stages, in this order:

1. **lookup**: an unknown tool name gets an error result (``tool-error``);
2. **filter**: an inactive tool gets an ``execution-denied`` result naming the tool and
   the filter (``active_tools``, ``inactive_tools`` or a ``harness_filter_tools`` policy);
3. **input**: ``tool.validate()``; a :class:`~harness_core.errors.ToolInputError` becomes a
   ``tool-error`` and an error result listing the problems (the model can fix them);
4. **context**: the tool's ``context_schema`` validates its entry of ``tools_context``
   (or of ``prepare_call``'s result); failure gives a *generic* error to the runtime and
   in the parts; the detailed error only reaches ``on_tool_execution_end``;
5. **approval**: ``harness_approve_call`` (the ``tool_approval`` policy and any other
   policy); denied gives ``execution-denied``; user-approval pauses the turn;
6. **client-side**: a tool without ``execute`` pauses the turn until the host supplies
   the result;
7. **execute**: ``harness_execute_tool`` (wrappers included), with the restricted sandbox
   view in :attr:`~harness_core.tools.definition.ToolContext.sandbox`.

The driver (:mod:`harness_core.agent.runner`) emits the parts and submits results; this module
only decides and executes.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import pydantic

from harness_core.approval import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    PermissionMode,
    ToolApprovalSetting,
)
from harness_core.errors import ToolInputError
from harness_core.hook_contexts import ExecutionContext, OnError
from harness_core.plugins.manager import HookFacade
from harness_core.sandbox import SandboxView
from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall, ToolContext
from harness_core.tools.output import ToolOutput

__all__ = [
    "CONTEXT_ERROR_MESSAGE",
    "HostCallSetup",
    "Outcome",
    "ToolExecutionEnd",
    "context_is_optional",
    "validate_context",
]

logger = logging.getLogger("harness_core")

CONTEXT_ERROR_MESSAGE = "Tool context validation failed: the host could not provide a valid context for tool {name!r}; the call was not executed."
"""The generic message the runtime and the parts get for missing or invalid tool context."""


@attrs.frozen(kw_only=True)
class ToolExecutionEnd:
    """What ``on_tool_execution_end`` receives after a host tool call reached its result.

    Called for executed calls (successful or not) and for calls rejected before
    execution by input or context validation; not for denied or client-side calls.

    Attributes:
        call: the call (``call.input`` is the validated input when validation passed).
        tool: the host tool.
        session_id: the session.
        output: what the runtime received.
        error: the detailed error: a :class:`~harness_core.errors.ToolInputError`, a
            :class:`pydantic.ValidationError` or ``LookupError`` for context problems (the
            runtime only saw a generic message), the exception ``execute`` (or
            ``to_model_output``) raised, or the ``TimeoutError`` of ``tool_timeout``;
            ``None`` when the call succeeded.
        context: the validated context the tool ran with, or ``None``.
        duration: seconds spent executing (0 for calls rejected before execution).
        tools_context: the tools context map in effect for the call (host-only).
    """

    call: ToolCall
    tool: HarnessTool
    session_id: str
    output: ToolOutput
    error: BaseException | None = None
    context: Any = None
    duration: float = 0.0
    tools_context: Mapping[str, Any] = attrs.field(factory=dict)


OnToolExecutionEnd = Callable[[ToolExecutionEnd], "Awaitable[None] | None"]


def context_is_optional(schema: type[pydantic.BaseModel]) -> bool:
    """True when every field of ``schema`` has a default (the context may be omitted)."""
    return all(not field.is_required() for field in schema.model_fields.values())


def validate_context(tool: HarnessTool, contexts: Mapping[str, Any]) -> Any:
    """The validated context for ``tool`` from a ``tools_context`` map.

    Returns:
        ``None`` for tools without ``context_schema``; else a model instance.

    Raises:
        LookupError: the map has no entry for a tool whose context is required.
        pydantic.ValidationError: the entry does not match the schema.
    """
    schema = tool.context_schema
    if schema is None:
        return None
    if tool.name not in contexts or contexts[tool.name] is None:
        if context_is_optional(schema):
            return schema()
        raise LookupError(f"tools_context has no entry for tool {tool.name!r}, whose context_schema requires one")
    value = contexts[tool.name]
    if isinstance(value, schema):
        return value
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump()
    return schema.model_validate(value)


@attrs.frozen(kw_only=True)
class Outcome:
    """The pipeline's verdict on a host call before execution.

    Attributes:
        kind: ``reject-error`` (tool-error + error result), ``reject-denied``
            (execution-denied), ``ask`` (user-approval), ``client`` (client-side: wait for
            the host), ``run`` (execute now).
        output: for rejections, the result to submit.
        message: for rejections, the message for the part (error or denial reason).
        detail: the detailed error for ``on_tool_execution_end``.
        validated: the validated input (for ``ask``, ``client``, ``run``).
        context: the validated context (for ``ask``, ``run``).
        decision: the merged approval decision, when approval ran.
    """

    kind: str
    output: ToolOutput | None = None
    message: str | None = None
    detail: BaseException | None = None
    validated: Any = None
    context: Any = None
    decision: ApprovalDecision | None = None


def denied_output(reason: str | None) -> ToolOutput:
    """The ``execution-denied`` result the runtime receives."""
    return ToolOutput(f"Execution denied: {reason}" if reason else "Execution denied", is_error=True)


def _unknown_resources(what: str, exc: Exception) -> ApprovalDecision:
    """The denial for a call whose ``resources`` mapping raised: unknown reach is unsafe."""
    return ApprovalDecision(
        ApprovalStatus.DENIED,
        f"could not tell what {what} touches ({type(exc).__name__}: {exc}); denied for safety",
        plugin="harness-core",
    )


@attrs.frozen(kw_only=True)
class HostCallSetup:
    """Everything the pipeline needs for one session's host calls.

    Attributes:
        hooks: the agent's hook facade.
        harness_id / session_id / permission_mode / workspace_root: for approval contexts.
        tools: host tools by name (active and inactive).
        inactive: inactive host tool names, each with the reason (which filter).
        tool_approval: the agent's ``tool_approval`` settings.
        on_error / timeout: execution policy.
        sandbox: the restricted sandbox view handed to tools, or ``None``.
        on_end: the ``on_tool_execution_end`` callback, or ``None``.
    """

    hooks: HookFacade
    harness_id: str
    session_id: str
    permission_mode: PermissionMode
    workspace_root: str | None
    tools: Mapping[str, HarnessTool]
    inactive: Mapping[str, str]
    tool_approval: Mapping[str, ToolApprovalSetting]
    on_error: OnError = "return-to-model"
    timeout: float | None = None
    sandbox: SandboxView | None = None
    on_end: OnToolExecutionEnd | None = None

    def approval_context(self, tool: HarnessTool | BuiltinTool | None, resources: Any) -> ApprovalContext:
        """The :class:`ApprovalContext` for one call."""
        return ApprovalContext(
            harness_id=self.harness_id,
            session_id=self.session_id,
            permission_mode=self.permission_mode,
            tool=tool,
            resources=resources,
            workspace_root=self.workspace_root,
            tool_approval=self.tool_approval,
        )

    def decide_builtin(self, call: ToolCall, tool: BuiltinTool | None) -> ApprovalDecision:
        """Merge every policy's decision on a built-in call."""
        try:
            resources = tool.resources_for(call.input) if tool is not None and isinstance(call.input, Mapping) else None
        except Exception as exc:
            return _unknown_resources(f"built-in {call.tool_name!r}", exc)
        return self.hooks.approve_call(call, self.approval_context(tool, resources))

    def check(self, call: ToolCall, contexts: Mapping[str, Any], *, approve: bool = True) -> Outcome:
        """Run stages 1-6 for a host call; ``approve=False`` skips approval (already approved)."""
        tool = self.tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            message = f"Unknown tool {call.tool_name!r}: the host has no such tool (host tools: {known})."
            return Outcome(kind="reject-error", output=ToolOutput(message, is_error=True), message=message)
        if tool.name in self.inactive:
            reason = f"tool {tool.name!r} is inactive ({self.inactive[tool.name]}) and may not be called"
            return Outcome(kind="reject-denied", output=denied_output(reason), message=reason)
        try:
            validated = tool.validate(call.input)
        except ToolInputError as exc:
            message = str(exc)
            return Outcome(kind="reject-error", output=ToolOutput(message, is_error=True), message=message, detail=exc)
        try:
            context = validate_context(tool, contexts)
        except (LookupError, pydantic.ValidationError) as exc:
            message = CONTEXT_ERROR_MESSAGE.format(name=tool.name)
            return Outcome(kind="reject-error", output=ToolOutput(message, is_error=True), message=message,
                           detail=exc, validated=validated)
        decision: ApprovalDecision | None = None
        if approve:
            checked = attrs.evolve(call, input=validated)
            try:
                resources = tool.resources_for(validated)
            except Exception as exc:
                decision = _unknown_resources(f"tool {tool.name!r}", exc)
            else:
                decision = self.hooks.approve_call(checked, self.approval_context(tool, resources))
            if decision.status is ApprovalStatus.DENIED:
                return Outcome(kind="reject-denied", output=denied_output(decision.reason), message=decision.reason,
                               decision=decision, validated=validated)
            if decision.status is ApprovalStatus.USER_APPROVAL:
                return Outcome(kind="ask", validated=validated, context=context, decision=decision)
        if tool.client_side:
            return Outcome(kind="client", validated=validated, context=context, decision=decision)
        return Outcome(kind="run", validated=validated, context=context, decision=decision)

    async def execute(
        self,
        call: ToolCall,
        tool: HarnessTool,
        validated: Any,
        context: Any,
        on_preliminary: Callable[[Any], None],
    ) -> tuple[ToolOutput, BaseException | None, float]:
        """Run one approved call through ``harness_execute_tool``.

        Returns:
            ``(output, error, seconds)``; ``error`` is the exception behind an error
            result: the one ``execute`` (or ``to_model_output``) raised, the
            ``TimeoutError`` of a timeout (both carried by
            :attr:`~harness_core.tools.output.ToolOutput.exception`, which is stripped from
            ``output``), or one a wrapper or the hook machinery raised; else ``None``.

        Raises:
            ToolExecutionError: ``on_error="fail"`` and ``execute`` raised.
        """
        tool_context = ToolContext(
            tool_call_id=call.tool_call_id,
            tool_name=tool.name,
            session_id=self.session_id,
            harness_id=self.harness_id,
            sandbox=self.sandbox,
            context=context,
        )
        execution = ExecutionContext(
            tool=tool, tool_context=tool_context, on_error=self.on_error,
            on_preliminary=on_preliminary, timeout=self.timeout,
        )
        started = time.monotonic()
        error: BaseException | None = None
        # The facade returns an error output for any failure, or raises ToolExecutionError
        # (on_error="fail"): the on_error policy lives in harness_core.execution alone.
        output = await self.hooks.execute_tool(attrs.evolve(call, input=validated), execution)
        if output.exception is not None:
            # The executor turned a raise (or timeout) into this error result: the callback
            # gets the exception; the runtime gets the result without it.
            error = output.exception
            output = attrs.evolve(output, exception=None)
        return output, error, time.monotonic() - started

    async def notify_end(self, event: ToolExecutionEnd) -> None:
        """Call ``on_tool_execution_end``; a failing callback is logged, never fatal."""
        if self.on_end is None:
            return
        try:
            result = self.on_end(event)
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.exception("on_tool_execution_end raised for tool %r (call %s)", event.tool.name,
                             event.call.tool_call_id)
