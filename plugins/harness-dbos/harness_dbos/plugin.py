"""The ``dbos`` plugin (entry point ``harness`` / ``dbos``): host-tool executions and the
built-in harness's own built-in executions inside a durable turn are recorded: by call id
in ``harness_dbos_runtime`` (a runtime turn, :mod:`harness_dbos.runtime_tool`; a built-in
harness turn on SQLite, :mod:`harness_dbos.inline_tool`), else as DBOS steps
(:mod:`harness_dbos.tool_step`).

It implements ``harness_execute_tool`` as a wrapper (outside the core's ``output-limit``,
``error-policy`` and ``tool-timeout`` wrappers, so the step records the final, bounded
output) and ``harness_execute_builtin`` as a wrapper (each ``read``, ``write``, ``edit``,
``bash``... the built-in harness runs, after its deadline and error handling). Outside a
durable turn (:data:`harness_dbos._context.current_turn` unset) both return the inner
awaitable unchanged and never import DBOS.
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator, Sequence
from typing import TYPE_CHECKING

from harness_core import hookimpl

from ._context import current_turn

if TYPE_CHECKING:
    import click

    from harness_core import BuiltinExecutionContext, ExecutionContext, ToolCall, ToolOutput

__all__ = ["PLUGIN_NAME", "harness_cli_commands", "harness_execute_builtin", "harness_execute_tool"]

PLUGIN_NAME = "dbos"
"""The name this plugin is registered under (its entry-point name)."""


@hookimpl(wrapper=True)
def harness_execute_tool(
    call: ToolCall, context: ExecutionContext
) -> Generator[None, Awaitable[ToolOutput] | None, Awaitable[ToolOutput] | None]:
    """Wrap the execution of ``call`` in a step of the running durable turn, if any."""
    awaitable = yield
    runtime = current_turn.get()
    if awaitable is None or runtime is None:
        return awaitable
    if runtime.records is not None:
        from .runtime_tool import recorded_tool_call

        return recorded_tool_call(awaitable, call, runtime)
    if runtime.tool_records is not None:
        from .inline_tool import inline_tool_call

        return inline_tool_call(awaitable, call, runtime)
    from .tool_step import durable_tool_call

    return durable_tool_call(awaitable, call, runtime)


@hookimpl(wrapper=True)
def harness_execute_builtin(
    call: ToolCall, context: BuiltinExecutionContext
) -> Generator[None, Awaitable[ToolOutput] | None, Awaitable[ToolOutput] | None]:
    """Wrap a built-in execution of the built-in harness in a step of the running durable
    turn, if any (a replayed model response then replays its built-in results instead of
    running them again)."""
    awaitable = yield
    runtime = current_turn.get()
    if awaitable is None or runtime is None:
        return awaitable
    if runtime.tool_records is not None:
        from .inline_tool import inline_tool_call

        return inline_tool_call(awaitable, call, runtime, kind="builtin")
    from .tool_step import durable_tool_call

    return durable_tool_call(awaitable, call, runtime, kind="builtin")


@hookimpl
def harness_cli_commands() -> Sequence[click.Command]:
    """``harness worker`` and ``harness sessions``."""
    from .cli import commands

    return commands()
