"""The verdict of the host-call checks on one call, before anything is emitted or run.

:func:`~harness_core.agent.host_call.HostCallPath` turns a host tool call into exactly one
:data:`Outcome`; each variant says what the call path does next:

* :class:`Rejected`: a ``tool-error`` part and an error result (unknown tool, bad input,
  bad context); the model can fix its call.
* :class:`Denied`: a ``tool-output-denied`` part and an ``execution-denied`` result
  (inactive tool, a policy's denial); a policy's denial (``decision`` set) is first
  announced by the automatic ``tool-approval-request`` / ``tool-approval-response`` pair.
* :class:`Ask`: a ``tool-approval-request``; the turn pauses for a person.
* :class:`ClientSide`: no ``execute``; the turn pauses until the host supplies the result.
* :class:`Run`: execute now.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import attrs

from harness_core.approval import ApprovalDecision
from harness_core.tools.output import ToolOutput

__all__ = ["Ask", "ClientSide", "Denied", "Outcome", "Rejected", "Run", "denied_output"]


def denied_output(reason: str | None) -> ToolOutput:
    """The ``execution-denied`` result the runtime receives."""
    return ToolOutput(f"Execution denied: {reason}" if reason else "Execution denied", is_error=True)


@attrs.frozen(kw_only=True)
class Rejected:
    """Refused before approval: the model gets ``message`` as an error result.

    Attributes:
        message: the error text (part and result).
        detail: the detailed error for ``on_tool_execution_end`` (``None`` when there is
            nothing more to say, e.g. an unknown tool).
        validated: the validated input when input validation passed.
    """

    message: str
    detail: BaseException | None = None
    validated: Any = None

    @property
    def output(self) -> ToolOutput:
        """The error result the runtime receives."""
        return ToolOutput(self.message, is_error=True)


@attrs.frozen(kw_only=True)
class Denied:
    """Not allowed to run: ``execution-denied`` with ``reason``."""

    reason: str | None
    decision: ApprovalDecision | None = None

    @property
    def output(self) -> ToolOutput:
        """The ``execution-denied`` result the runtime receives."""
        return denied_output(self.reason)


@attrs.frozen(kw_only=True)
class Ask:
    """A person must decide (``user-approval``)."""

    validated: Any
    context: Any
    decision: ApprovalDecision


@attrs.frozen(kw_only=True)
class ClientSide:
    """A client-side tool (no ``execute``): the host supplies the result later."""

    validated: Any


@attrs.frozen(kw_only=True)
class Run:
    """Approved (or nothing to approve): execute with the validated input and context."""

    validated: Any
    context: Any


Outcome: TypeAlias = Rejected | Denied | Ask | ClientSide | Run
"""One of the five verdicts above."""
