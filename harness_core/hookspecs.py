"""Hook specifications of harness-core (pluggy project ``harness``).

Read this file first when writing a plugin. Every hook is prefixed ``harness_``; implement
one by decorating a function of the same name with :data:`harness_core.hookimpl` in a module
or class you register through the ``harness`` entry-point group::

    # my_pack/plugin.py, declared as  [project.entry-points.harness] my-pack = "my_pack.plugin"
    from harness_core import define_harness_tool, hookimpl

    @hookimpl
    def harness_tools():
        return [define_harness_tool(name="echo", description="Echo text.",
                                    input={"type": "object", "properties": {"text": {"type": "string"}}},
                                    execute=lambda input, ctx: input["text"])]

An implementation may accept only some of a hook's arguments (pluggy passes them by name);
implementations must never declare arguments with default values, since pluggy never
passes them.

**Calling.** Every hook is called through pluggy (``pm.hook.<name>``) by the typed facade
:class:`harness_core.HookFacade` (``manager.hooks``), the only code that touches
``pm.hook``. So ``@hookimpl(wrapper=True)``, ``tryfirst`` and ``trylast`` work on every
hook: a wrapper on a collect hook sees (and may replace) the list of every plugin's
results, on ``harness_approve_call`` the list of decisions before they are merged.

**Failures** are attributed to the plugin and the hook
(:class:`harness_core.PluginHookError`) and fail closed where it matters: an approval
policy that raises or returns the wrong type denies the call; a filter that raises or
returns anything but an iterable of names (``"bash"`` is not one) stops the session from
being created; a plugin implementing either hook that fails to import or register makes
agent construction raise until it is fixed or disabled (``HARNESS_DISABLE_PLUGINS``); a
tool pack that fails is skipped with a warning and shown as failed by ``harness plugins``.

**The core's defaults are ordinary plugins**, never looked up by name: ``permission-mode``
and ``tool-approval`` (which declare what they enforce with :func:`harness_core.enforces`),
the ``harness_execute_tool`` wrappers ``tool-timeout``, ``error-policy`` and
``output-limit``, ``default-executor`` (host tools and ``harness_execute_builtin``) and
``default-projection``.

**Testing a plugin in isolation.** The process-wide manager holds every installed plugin,
so another installed policy changes what your tests see. Build a manager holding the core
defaults and only the plugins you name, and give it to the agent::

    manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[my_policy])
    agent = HarnessAgent(harness="builtin", plugin_manager=manager)

(``register_core=False`` leaves the defaults out too;
:func:`harness_core.testing.isolated_plugin_manager` and the ``isolated_plugins`` pytest
fixture do the same.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

    from harness_core.adapter import AdapterFactory
    from harness_core.approval import ApprovalContext, ApprovalDecision
    from harness_core.hook_contexts import (
        BuiltinExecutionContext,
        ExecutionContext,
        FilterRequest,
        ProjectionContext,
    )
    from harness_core.parts.models import Part
    from harness_core.sandbox import Sandbox
    from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall
    from harness_core.tools.output import ToolOutput

__all__ = ["PROJECT_NAME", "hookimpl", "hookspec"]

PROJECT_NAME = "harness"
"""The pluggy project name; also the entry-point group plugins are discovered in."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def harness_adapters() -> Mapping[str, AdapterFactory]:
    """Contribute adapter factories, keyed by harness id.

    Implemented by: adapter plugins.

    Returns:
        ``{harness_id: factory}``; a factory is called with keyword settings (or none) and
        returns an :class:`~harness_core.adapter.Adapter`. Import heavy SDKs inside the
        factory, not at module import.

    Combination: all results are merged; the same harness id from two plugins is an error
    naming both plugins.
    """
    raise NotImplementedError


@hookspec
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """Declare the built-in tools the runtime ``harness_id`` calls natively.

    Implemented by: adapter plugins (return ``None`` for another plugin's harness id).

    Args:
        harness_id: the harness whose built-ins are wanted.

    Returns:
        :class:`~harness_core.tools.definition.BuiltinTool` declarations: common name (``read``,
        ``write``, ``edit``, ``bash``, ``grep``, ``glob``, ``webSearch``) or native name,
        native name, kind, input schema and a ``resources`` extractor; or ``None``.

    Combination: all results are concatenated; a name declared twice is an error.
    """
    raise NotImplementedError


@hookspec
def harness_tools() -> Sequence[HarnessTool]:
    """Contribute host-executed tools.

    Implemented by: tool packs.

    Returns:
        :class:`~harness_core.tools.definition.HarnessTool` objects made with
        :func:`~harness_core.tools.definition.define_harness_tool`.

    Combination: all results are concatenated; the same tool name from two plugins is a
    :class:`~harness_core.errors.ToolNameConflictError` naming both plugins.
    """
    raise NotImplementedError


@hookspec
def harness_filter_tools(
    tools: Sequence[HarnessTool | BuiltinTool], request: FilterRequest
) -> Iterable[str] | None:
    """Name tools the runtime must not be able to call.

    Implemented by: policies (an org policy removing ``webSearch``, say).

    Args:
        tools: the tools left after the agent's ``active_tools`` / ``inactive_tools``.
        request: the harness, session and permission mode being configured.

    Returns:
        Harness-facing names to remove, or ``None``.

    Combination: the union of all results is removed; unknown names are ignored. A
    result that is not ``None`` or an iterable of ``str`` (a bare string, a number), or an
    exception, makes session creation raise a
    :class:`~harness_core.errors.HarnessConfigurationError` naming the plugin (fail closed).
    """
    raise NotImplementedError


@hookspec
def harness_approve_call(call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
    """Decide whether a tool call may run.

    Implemented by: approval policies; the core's ``permission-mode`` and ``tool-approval``
    policies are ordinary plugins implementing it.

    Args:
        call: the call (built-in or host) with its input.
        context: the tool, the resources it touches, the permission mode, the session.

    Returns:
        An :class:`~harness_core.approval.ApprovalDecision` or ``None`` (no opinion).

    Combination: every implementation runs; decisions merge with
    :func:`~harness_core.approval.merge_decisions`: denied beats user-approval beats
    approved beats not-applicable, whatever the plugin order; fallback decisions (the
    permission mode's default) yield to explicit ones. The deciding plugin is recorded.
    An implementation that raises, or returns something other than an ``ApprovalDecision``
    or ``None``, counts as a denial naming the plugin. A ``wrapper=True`` implementation
    receives the list of decisions (``decisions = yield``) and returns the list to merge.
    Declare what a policy enforces with :func:`harness_core.enforces`; under
    ``allow-all`` built-in calls skip this hook only when every implementation declares it.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def harness_execute_tool(call: ToolCall, context: ExecutionContext) -> Awaitable[ToolOutput] | None:
    """Run a host-executed tool call.

    Implemented by: the core default (runs ``tool.execute``), tool packs that execute
    their calls themselves, and wrappers (``@hookimpl(wrapper=True)``) that add timeouts,
    audit or redaction by wrapping the awaitable the inner implementation returns.

    Args:
        call: the call, ``call.input`` holding the validated input.
        context: the tool, its :class:`~harness_core.tools.definition.ToolContext`, error policy and
            preliminary-result callback.

    Returns:
        An awaitable resolving to the bounded :class:`~harness_core.tools.output.ToolOutput`, or
        ``None`` to let the next implementation run.

    Combination: first non-``None`` result wins; wrappers see and may replace it. The
    core's policies are wrappers, outer to inner: ``output-limit`` (normalize, cut to
    100,000 characters), ``error-policy`` (``on_error``), ``tool-timeout``; a wrapper you
    register runs outside them. An implementation that raises when called is an error
    result naming it (or fails the turn with ``on_error="fail"``).
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def harness_execute_builtin(call: ToolCall, context: BuiltinExecutionContext) -> Awaitable[ToolOutput] | None:
    """Run a built-in call that the runtime executes in this process.

    Called by runtimes that run their built-ins in the host's Python process (the built-in
    harness: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``glob``, its MCP tools),
    once per execution of an approved call, through ``StartRequest.execute_builtin``.
    Runtimes with their own process (Claude Code, Codex, pi, ACP) run their built-ins
    there and never call it.

    Implemented by: the core's ``default-executor`` (``trylast``: returns
    ``context.execute()``) and wrappers (``@hookimpl(wrapper=True)``) that record, audit
    or time each execution by wrapping the awaitable (harness-dbos makes it a durable step).

    Args:
        call: the call (``call.input`` holds the model's arguments, not yet validated).
        context: the harness, the session and ``execute``, which runs the call once.

    Returns:
        An awaitable resolving to the call's :class:`~harness_core.tools.output.ToolOutput`
        (the runtime's own deadline and error handling already applied; the core's
        ``output-limit``, ``error-policy`` and ``tool-timeout`` do not apply), or ``None``
        to let the next implementation run.

    Combination: first non-``None`` result wins; wrappers see and may replace it. A
    wrapper that does not await the inner awaitable skips the execution (a replay). A
    missing implementation, and anything an implementation raises, reaches the runtime as
    an exception (the built-in harness ends the turn with an error).
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Turn one native runtime event into zero or more stream parts.

    Implemented by: adapter plugins (for their own event types) and the core default
    (``trylast``: passes parts through, wraps anything else in a ``raw`` part).

    Args:
        event: one item of an :class:`~harness_core.adapter.AdapterTurn`'s event stream
            (control events never reach this hook).
        context: per-turn projection context and scratch state.

    Returns:
        The parts (possibly empty) or ``None`` when the event is not this plugin's.

    Combination: first non-``None`` result wins; wrappers may edit the parts.
    """
    raise NotImplementedError


@hookspec
def harness_cli_commands() -> Sequence[click.Command]:
    """Contribute subcommands to the ``harness`` command line.

    Implemented by: plugins with a command-line surface (``harness rules``,
    ``harness demo``).

    Returns:
        :class:`click.Command` objects; their names become subcommands.

    Combination: all results are added; a command whose name is already taken (by the
    core or an earlier plugin) is skipped with a message on stderr naming the plugin, so
    one plugin can never break the command line.
    """
    raise NotImplementedError


@hookspec
def harness_sandboxes() -> Mapping[str, Callable[[Path], Sandbox]]:
    """Contribute sandbox factories, keyed by sandbox name (``harness run --sandbox NAME``).

    Implemented by: sandbox provider plugins (``harness-sandbox-bwrap`` contributes
    ``"bwrap"``). The name ``"local"`` (:class:`~harness_core.sandbox.LocalSandbox`) is the
    core's own and cannot be contributed.

    Returns:
        ``{name: factory}``; a factory is called with the resolved workspace directory and
        returns a :class:`~harness_core.sandbox.Sandbox` confining it, or raises (a
        :class:`~harness_core.errors.HarnessCapabilityUnsupportedError` saying what is
        missing) when it cannot confine commands on this machine: never an unconfined one.
        Called at load time: import heavy dependencies inside the factory.

    Combination: all results are merged; the same name from two plugins is an error naming
    both plugins.
    """
    raise NotImplementedError


HOOK_NAMES: tuple[str, ...] = tuple(sorted(name for name in dir() if name.startswith("harness_")))
"""The names of every hook specification, sorted."""

