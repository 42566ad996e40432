"""The typed hook facade: the only code that calls ``pm.hook``.

Every hook goes through ``pm.hook.<name>(...)``, so ``wrapper=True``, ``tryfirst`` and
``trylast`` work on all of them; :mod:`harness_core.plugins.attribution` says how each
result and failure is attributed to its plugin without bypassing pluggy. What a failure
does, per hook:

* ``harness_approve_call``: a collect hook; wrappers see (and may change) the whole list
  of decisions, which is then merged with :func:`~harness_core.approval.merge_decisions`.
  A policy (or wrapper) that raises or returns the wrong type is a denial naming it; a
  guard plugin that failed to load denies every call.
* ``harness_filter_tools``: an exception or a wrong result type fails closed
  (:class:`~harness_core.plugins.attribution.PluginHookError`, a
  :class:`~harness_core.errors.HarnessConfigurationError` naming the plugin).
* ``harness_adapters``, ``harness_tools``, ``harness_cli_commands``,
  ``harness_sandboxes``, ``harness_declare_builtins``: a failing plugin that guards (implements the approval or
  filter hook) raises; another is skipped with a :class:`PluginLoadWarning`, marked failed
  in ``harness plugins`` and unregistered, so it never breaks other agents. Built-ins
  declared wrongly for the agent's own harness raise (its approvals depend on them).
* ``harness_execute_tool``: never raises but :class:`~harness_core.execution.ToolExecutionError`;
  any failure is an error output (``on_error`` decides, in :func:`~harness_core.execution.settle_error`).
* ``harness_execute_builtin``: a failure propagates to the runtime that asked.
* ``harness_project_event``: a failure becomes an ``error`` part naming the plugin.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness_core.approval import (
    ApprovalContext,
    ApprovalDecision,
    PermissionMode,
    merge_decisions,
)
from harness_core.errors import HarnessConfigurationError, ToolNameConflictError
from harness_core.execution import ToolExecutionError, settle_error
from harness_core.plugins.attribution import (
    HookLedger,
    PluginHookError,
    denial,
    filter_names,
    recording,
)
from harness_core.plugins.policies import ENFORCES_ATTRIBUTE, EnforcedSetting
from harness_core.plugins.records import (
    GUARD_HOOKS,
    PluginConflict,
    PluginLoadWarning,
    describe_error,
)
from harness_core.plugins.validation import check_result
from harness_core.tools.output import ToolOutput, normalize_output

if TYPE_CHECKING:
    import click

    from harness_core.adapter import AdapterFactory
    from harness_core.hook_contexts import BuiltinExecutionContext as BuiltinExecutionContext
    from harness_core.hook_contexts import ExecutionContext, FilterRequest, ProjectionContext
    from harness_core.parts.models import Part
    from harness_core.plugins.manager import HarnessPluginManager
    from harness_core.sandbox import Sandbox
    from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall

__all__ = ["HookFacade"]


class HookFacade:
    """Typed calls to every hook; the only code that touches ``pm.hook``.

    Args:
        manager: the plugin manager whose hooks are called (records and failures are
            reported back to it).
    """

    def __init__(self, manager: HarnessPluginManager) -> None:
        self._manager = manager
        self._hook = manager.pm.hook

    # -- collect hooks -------------------------------------------------------------------

    def _collect(self, hook_name: str, *, quiet: bool = False, **kwargs: Any) -> tuple[list[tuple[str, Any]], HookLedger]:
        """``[(plugin, result)]`` of one collect hook (wrappers applied), and its ledger.

        A failing plugin (a wrapper included) that guards raises; another is skipped
        (warned about, marked failed and unregistered, unless ``quiet``).
        """
        while True:
            with recording() as ledger:
                try:
                    results = getattr(self._hook, hook_name)(**kwargs)
                    break
                except PluginHookError as exc:  # a wrapper failed: skip it too, unless it guards
                    if quiet or self._guards(exc.plugin) or self._manager.pm.get_plugin(exc.plugin) is None:
                        raise
                    self._skip(exc)
        if not isinstance(results, list):
            raise PluginHookError(ledger.wrapper or f"a {hook_name} wrapper", hook_name,
                                  problem=f"returned {type(results).__name__}, not the list of results")
        pairs: list[tuple[str, Any]] = []
        for result in results:
            plugin = ledger.plugin_of(result, hook_name)
            try:
                check_result(hook_name, result)
            except TypeError as exc:
                raise PluginHookError(plugin, hook_name, problem=str(exc)) from exc
            pairs.append((plugin, result))
        for failure in ledger.failures:
            if quiet:
                continue
            if self._guards(failure.plugin):
                raise failure
            self._skip(failure)
        return pairs, ledger

    def _guards(self, plugin: str) -> bool:
        record = self._manager.record(plugin)
        return record is not None and bool(set(record.hooks) & set(GUARD_HOOKS))

    def _skip(self, failure: PluginHookError) -> None:
        message = f"{failure}; the plugin is skipped"
        warnings.warn(f"harness: {message}", PluginLoadWarning, stacklevel=4)
        self._manager.mark_failed(failure.plugin, str(failure))

    def adapters(self) -> dict[str, tuple[str, AdapterFactory]]:
        """``{harness_id: (plugin name, factory)}``.

        Raises:
            HarnessConfigurationError: two plugins contribute the same harness id.
            PluginHookError: a guard plugin's ``harness_adapters`` failed.
        """
        found: dict[str, tuple[str, AdapterFactory]] = {}
        for plugin, result in self._collect("harness_adapters")[0]:
            for harness_id, factory in (result or {}).items():
                if harness_id in found:
                    raise HarnessConfigurationError(
                        f"harness id {harness_id!r} is contributed by both plugin {found[harness_id][0]!r} "
                        f"and plugin {plugin!r}"
                    )
                found[harness_id] = (plugin, factory)
        return found

    def adapter_factory(self, harness_id: str) -> AdapterFactory:
        """The factory for ``harness_id``.

        Raises:
            HarnessConfigurationError: no installed plugin provides it (the message lists
                the available ids and failed plugins).
        """
        adapters = self.adapters()
        if harness_id not in adapters:
            available = ", ".join(sorted(adapters)) or "none"
            failed = [r.name for r in self._manager.records() if r.status == "failed"]
            hint = f"; failed plugins: {', '.join(failed)} (run `harness plugins`)" if failed else ""
            raise HarnessConfigurationError(
                f"no adapter plugin provides harness {harness_id!r} (available: {available}){hint}"
            )
        return adapters[harness_id][1]

    def builtins(self, harness_id: str) -> list[BuiltinTool]:
        """Built-ins declared for ``harness_id``.

        Raises:
            HarnessConfigurationError: a name is declared twice.
            PluginHookError: the plugin providing ``harness_id`` (or a guard plugin)
                failed to declare its built-ins.
        """
        with recording() as ledger:
            results = self._hook.harness_declare_builtins(harness_id=harness_id)
        own: set[str] | None = None
        for failure in ledger.failures:
            if own is None:
                own = {plugin for plugin, result in self._collect("harness_adapters", quiet=True)[0]
                       if harness_id in (result or {})}
            if failure.plugin in own or self._guards(failure.plugin):
                raise failure
            self._skip(failure)
        tools: dict[str, BuiltinTool] = {}
        for result in results if isinstance(results, list) else [results]:
            plugin = ledger.plugin_of(result, "harness_declare_builtins")
            try:
                check_result("harness_declare_builtins", result)
            except TypeError as exc:
                raise PluginHookError(plugin, "harness_declare_builtins", problem=str(exc)) from exc
            for tool in result or ():
                if tool.name in tools:
                    raise HarnessConfigurationError(
                        f"built-in {tool.name!r} of harness {harness_id!r} is declared twice (last by plugin {plugin!r})"
                    )
                tools[tool.name] = tool
        return list(tools.values())

    def tools(self) -> dict[str, tuple[str, HarnessTool]]:
        """Host tools from every tool pack: ``{name: (plugin name, tool)}``.

        A tool pack whose ``harness_tools`` fails now is skipped (see the module docs).

        Raises:
            ToolNameConflictError: two plugins contribute the same name (names both).
            PluginHookError: a guard plugin's ``harness_tools`` failed.
        """
        found: dict[str, tuple[str, HarnessTool]] = {}
        for plugin, result in self._collect("harness_tools")[0]:
            for tool in result or ():
                if tool.name in found:
                    first = found[tool.name][0]
                    if first == plugin:
                        raise ToolNameConflictError(
                            f"tool {tool.name!r} is contributed twice by plugin {self._label(plugin)}"
                        )
                    raise ToolNameConflictError(
                        f"tool {tool.name!r} is contributed by both plugin {self._label(first)} "
                        f"and plugin {self._label(plugin)}; disable one with HARNESS_DISABLE_PLUGINS"
                    )
                found[tool.name] = (plugin, tool)
        return found

    def conflicts(self) -> list[PluginConflict]:
        """Every tool name and harness id that more than one contribution claims.

        Unlike :meth:`tools` and :meth:`adapters` this never raises: a plugin whose
        registration hook fails now is left out (its problem shows when an agent uses it).

        Returns:
            The conflicts, tools first, each kind sorted by name.
        """
        found: list[PluginConflict] = []
        hooks: tuple[tuple[Literal["tool", "harness"], str], ...] = (
            ("tool", "harness_tools"), ("harness", "harness_adapters"),
        )
        for kind, hook_name in hooks:
            sources: dict[str, list[str]] = {}
            try:
                pairs = self._collect(hook_name, quiet=True)[0]
            except Exception:
                continue
            for plugin, result in pairs:
                names = [tool.name for tool in result or ()] if kind == "tool" else [str(key) for key in result or {}]
                for name in names:
                    sources.setdefault(name, []).append(plugin)
            found.extend(
                PluginConflict(kind, name, tuple(sorted(plugins)))
                for name, plugins in sorted(sources.items()) if len(plugins) > 1
            )
        return found

    def _label(self, plugin: str) -> str:
        record = self._manager.record(plugin)
        return repr(plugin) if record is None else record.label

    def sandbox_factory(self, name: str) -> Callable[[Path], Sandbox]:
        """The sandbox factory contributed under ``name`` (``harness_sandboxes``).

        Raises:
            HarnessConfigurationError: no installed plugin provides ``name`` (the message
                lists the available names, ``local`` included), or two plugins do.
        """
        found: dict[str, tuple[str, Callable[[Path], Sandbox]]] = {}
        for plugin, result in self._collect("harness_sandboxes")[0]:
            for key, factory in (result or {}).items():
                if key in found:
                    raise HarnessConfigurationError(
                        f"sandbox {key!r} is contributed by both plugin {found[key][0]!r} and plugin {plugin!r}"
                    )
                found[key] = (plugin, factory)
        if name not in found:
            available = ", ".join(["local", *sorted(found)])
            raise HarnessConfigurationError(f"no plugin provides sandbox {name!r} (available: {available})")
        return found[name][1]

    def cli_commands(self) -> list[tuple[str, click.Command]]:
        """``(plugin name, command)`` pairs contributed by plugins (a failing one is skipped)."""
        out: list[tuple[str, click.Command]] = []
        for plugin, result in self._collect("harness_cli_commands")[0]:
            out.extend((plugin, command) for command in result or ())
        return out

    # -- policies ------------------------------------------------------------------------

    def filter_tools(self, tools: Sequence[HarnessTool | BuiltinTool], request: FilterRequest) -> frozenset[str]:
        """The union of names every policy removes.

        Raises:
            HarnessConfigurationError: a guard plugin failed to load; or (as
                :class:`PluginHookError`) a filter raised or returned something other than
                an iterable of names (fail closed: the session is not created).
        """
        self._manager.raise_for_failed_guards()
        with recording() as ledger:
            results = self._hook.harness_filter_tools(tools=list(tools), request=request)
        if not isinstance(results, list):
            raise PluginHookError(ledger.wrapper or "a harness_filter_tools wrapper", "harness_filter_tools",
                                  problem=f"returned {type(results).__name__}, not the list of results")
        removed: set[str] = set()
        for result in results:
            removed.update(filter_names(ledger.wrapper or "a harness_filter_tools wrapper", result) or ())
        return frozenset(removed)

    def approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
        """Every policy's decision (wrappers applied), merged (deny wins), with the deciding
        plugin recorded. A policy or wrapper that raises or returns the wrong type counts as
        a denial naming it; a failed guard plugin denies every call."""
        failed = self._manager.failed_guards()
        if failed:
            return denial(failed[0].name, f"failed to load ({failed[0].error})")
        with recording() as ledger:
            try:
                decisions = self._hook.harness_approve_call(call=call, context=context)
            except PluginHookError as exc:
                return denial(exc.plugin, f"failed ({describe_error(exc.cause) if exc.cause else exc})")
            except Exception as exc:
                return denial("harness_approve_call", f"failed ({describe_error(exc)})")
        wrapper = ledger.wrapper or "a harness_approve_call wrapper"
        if not isinstance(decisions, list):
            return denial(wrapper, f"returned {type(decisions).__name__}, not the list of decisions")
        bad = [d for d in decisions if not isinstance(d, ApprovalDecision)]
        if bad:
            return denial(wrapper, f"returned {type(bad[0]).__name__}, not an ApprovalDecision")
        return merge_decisions(decisions)

    def enforcers(self, setting: EnforcedSetting) -> list[str]:
        """Names of loaded plugins whose ``harness_approve_call`` declares it enforces
        ``setting`` (:func:`~harness_core.plugins.policies.enforces`); by behaviour, never by name."""
        return [
            impl.plugin_name for impl in self._hook.harness_approve_call.get_hookimpls()
            if setting in getattr(impl.function, ENFORCES_ATTRIBUTE, frozenset())
        ]

    def builtin_calls_need_approval(self, permission_mode: PermissionMode) -> bool:
        """Whether built-in calls must go through ``harness_approve_call`` (a fast path).

        False only under ``allow-all`` when every implementation (wrappers included)
        declares it enforces ``tool_approval`` or ``permission_mode``: each then approves
        or abstains on every built-in call, so asking would change nothing.
        """
        if permission_mode is not PermissionMode.ALLOW_ALL or self._manager.failed_guards():
            return True
        return any(
            impl.wrapper or impl.hookwrapper or not getattr(impl.function, ENFORCES_ATTRIBUTE, None)
            for impl in self._hook.harness_approve_call.get_hookimpls()
        )

    # -- execution and projection ---------------------------------------------------------

    async def execute_tool(self, call: ToolCall, context: ExecutionContext) -> ToolOutput:
        """Run a host tool call through ``harness_execute_tool`` (wrappers included).

        Returns:
            The output; any failure (no implementation, a plugin raising or returning the
            wrong type, the awaitable raising) is an error output from
            :func:`~harness_core.execution.settle_error` whose ``exception`` is the cause.

        Raises:
            ToolExecutionError: ``context.on_error == "fail"`` and the call failed.
        """
        try:
            awaitable = self._hook.harness_execute_tool(call=call, context=context)
            if awaitable is None:
                raise HarnessConfigurationError(
                    f"no plugin executed tool {call.tool_name!r}; is the default-executor plugin disabled?"
                )
            if not inspect.isawaitable(awaitable):
                raise PluginHookError("a harness_execute_tool wrapper", "harness_execute_tool",
                                      problem=f"returned {type(awaitable).__name__}, not an awaitable")
            output = await awaitable
            return output if isinstance(output, ToolOutput) else normalize_output(output)
        except ToolExecutionError:
            raise
        except Exception as exc:
            return settle_error(exc, call, context)

    async def execute_builtin(self, call: ToolCall, context: BuiltinExecutionContext) -> ToolOutput:
        """Run an in-process built-in call through ``harness_execute_builtin`` (wrappers included).
        Raises what the execution or a wrapper raised, or HarnessConfigurationError without one."""
        awaitable = self._hook.harness_execute_builtin(call=call, context=context)
        if not inspect.isawaitable(awaitable):
            raise HarnessConfigurationError(f"no plugin executed built-in {call.tool_name!r}; is default-executor disabled?")
        output: ToolOutput = await awaitable
        return output

    def project_event(self, event: object, context: ProjectionContext) -> list[Part]:
        """The parts one native event becomes; a projection error becomes an ``error`` part."""
        from harness_core.parts.models import ErrorPart, Part

        try:
            parts = self._hook.harness_project_event(event=event, context=context)
            if parts is not None and not ((type(parts) is list or isinstance(parts, Sequence))
                                          and all(isinstance(p, Part) for p in parts)):
                raise PluginHookError("a harness_project_event wrapper", "harness_project_event",
                                      problem=f"returned {type(parts).__name__}, not a list of parts")
        except Exception as exc:
            cause = str(exc) if isinstance(exc, PluginHookError) else describe_error(exc)
            return [ErrorPart(error=f"could not project {type(event).__name__} event from harness "
                              f"{context.harness_id!r}: {cause}", error_type="projection")]
        return list(parts or ())
