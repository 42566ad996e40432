"""The core's execution policies, registered as ordinary ``harness_execute_tool`` wrappers.

Outer to inner (pluggy calls the wrapper registered last first):

* ``output-limit`` (:class:`OutputLimit`): normalizes whatever the inner implementations
  produced and cuts it to :data:`~harness_core.tools.output.MAX_OUTPUT_CHARS` characters;
* ``error-policy`` (:class:`ErrorPolicy`): the ``on_error`` policy
  (:func:`~harness_core.execution.settle_error`): a raise, a timeout or a broken inner
  implementation becomes an error result, or a
  :class:`~harness_core.execution.ToolExecutionError` with ``on_error="fail"``;
* ``tool-timeout`` (:class:`ToolTimeoutPolicy`): bounds the call by ``context.timeout``;
* then the executors: tool packs' own, and ``default-executor`` (``trylast``).

Each is an ordinary plugin: wrap it (a wrapper you register runs outside all three, so it
sees the final, cut output), replace it (disable it with ``HARNESS_DISABLE_PLUGINS`` and
register your own), or build a manager without it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator

from harness_core.execution import settle_error, with_error_policy, within_timeout
from harness_core.hook_contexts import ExecutionContext
from harness_core.hookspecs import hookimpl
from harness_core.tools.definition import ToolCall
from harness_core.tools.output import ToolOutput, normalize_output

__all__ = ["ErrorPolicy", "OutputLimit", "ToolTimeoutPolicy"]

_Wrapped = Generator[None, Awaitable[ToolOutput] | None, Awaitable[ToolOutput] | None]


async def _bounded(awaitable: Awaitable[object]) -> ToolOutput:
    return normalize_output(await awaitable)


async def _settled(exc: BaseException, call: ToolCall, context: ExecutionContext) -> ToolOutput:
    return settle_error(exc, call, context)


class ToolTimeoutPolicy:
    """The ``tool-timeout`` plugin: ``context.timeout`` seconds for the whole call."""

    @hookimpl(wrapper=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> _Wrapped:
        awaitable = yield
        if awaitable is None or context.timeout is None:
            return awaitable
        return within_timeout(awaitable, call, context)


class ErrorPolicy:
    """The ``error-policy`` plugin: ``on_error`` for raises, timeouts and broken executors."""

    @hookimpl(wrapper=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> _Wrapped:
        try:
            awaitable = yield
        except Exception as exc:  # an inner implementation raised while being called
            return _settled(exc, call, context)
        if awaitable is None:
            return None
        return with_error_policy(awaitable, call, context)


class OutputLimit:
    """The ``output-limit`` plugin: normalize and cut the output to 100,000 characters."""

    @hookimpl(wrapper=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> _Wrapped:
        awaitable = yield
        if awaitable is None:
            return None
        return _bounded(awaitable)
