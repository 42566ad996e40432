"""Tool context for host tools: validation against ``context_schema``, and the end-of-execution report.

``tools_context`` (or ``prepare_call``'s result) maps host tool names to contexts; a tool
with a ``context_schema`` gets its entry validated into the schema before it runs. Failure
gives the runtime a generic message (:data:`CONTEXT_ERROR_MESSAGE`); the detailed error only
reaches ``on_tool_execution_end`` (:class:`ToolExecutionEnd`), as the AI SDK's "Harness
Tools" page specifies for context errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import pydantic

from harness_core.tools.definition import HarnessTool, ToolCall
from harness_core.tools.output import ToolOutput

__all__ = ["CONTEXT_ERROR_MESSAGE", "OnToolExecutionEnd", "ToolExecutionEnd", "context_is_optional", "validate_context"]

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
