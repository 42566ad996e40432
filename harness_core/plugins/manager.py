"""Plugin discovery, load isolation, listing, and the typed hook facade.

Plugins are found through the ``harness`` entry-point group; the entry-point name is the
plugin name. Loading is our own loop, one plugin at a time, so one broken plugin never
stops the others:

* an entry point refers to a module or an object with ``@hookimpl`` functions, or to a
  class, which is instantiated without arguments;
* a plugin that fails to import, fails registration validation (a ``harness_*`` function
  with no such hook, an argument the hook does not have, an argument with a default value,
  a hook function without ``@hookimpl``) or raises inside a registration hook
  (``harness_adapters``, ``harness_tools``, ``harness_cli_commands``, which are called
  once at load time and must return the documented shape) is skipped with a
  :class:`PluginLoadWarning` naming the plugin, its distribution and the error, and
  everything registered since it started loading (its import's side effects included) is
  rolled back;
* ``HARNESS_STRICT_PLUGINS=1`` turns the first failure into a
  :class:`~harness_core.errors.PluginLoadError`;
* ``HARNESS_DISABLE_PLUGINS=a,b`` blocks plugins by name before they are imported (core
  defaults included);
* loading twice registers nothing twice.

:class:`HarnessPluginManager` wraps :class:`pluggy.PluginManager`; :class:`HookFacade`
is the only place that calls ``pm.hook``. Build an isolated manager with
:func:`create_plugin_manager`; :func:`get_plugin_manager` returns the process-wide one.
"""

from __future__ import annotations

import importlib.metadata
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import attrs
import pluggy

from harness_core import hookspecs
from harness_core.approval import ApprovalContext, ApprovalDecision, ApprovalStatus, merge_decisions
from harness_core.errors import HarnessConfigurationError, PluginLoadError, ToolNameConflictError
from harness_core.parts.models import ErrorPart, Part
from harness_core.tools.output import ToolOutput

if TYPE_CHECKING:
    import click

    from harness_core.adapter import AdapterFactory
    from harness_core.hook_contexts import ExecutionContext, FilterRequest, ProjectionContext
    from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall

__all__ = [
    "CORE_PLUGINS",
    "ENTRY_POINT_GROUP",
    "HarnessPluginManager",
    "HookFacade",
    "PluginConflict",
    "PluginKind",
    "PluginLoadWarning",
    "PluginRecord",
    "create_plugin_manager",
    "get_plugin_manager",
    "reset_plugin_manager",
]

ENTRY_POINT_GROUP = hookspecs.PROJECT_NAME
STRICT_ENV = "HARNESS_STRICT_PLUGINS"
DISABLE_ENV = "HARNESS_DISABLE_PLUGINS"

PluginKind = Literal["core", "adapter", "tools", "policy", "other"]
PluginStatus = Literal["loaded", "failed", "disabled"]

_REGISTRATION_HOOKS = ("harness_adapters", "harness_tools", "harness_cli_commands")


class PluginLoadWarning(UserWarning):
    """A plugin was skipped because it failed to load; the message says why."""


class EntryPointLike(Protocol):
    """What discovery needs of an entry point (tests pass fakes)."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> str: ...

    def load(self) -> Any: ...


@attrs.define
class PluginRecord:
    """One plugin as ``harness plugins`` lists it.

    Attributes:
        name: plugin (entry-point) name.
        distribution: the distribution declaring it (``None`` for in-memory plugins).
        version: that distribution's version.
        kind: core, adapter, tools, policy or other (from the hooks it implements).
        hooks: the hooks it implements, sorted.
        status: loaded, failed or disabled.
        error: why it failed, for failed plugins.
        value: the entry point's ``module:attr`` reference, when discovered.
    """

    name: str
    distribution: str | None = None
    version: str | None = None
    kind: PluginKind = "other"
    hooks: tuple[str, ...] = ()
    status: PluginStatus = "loaded"
    error: str | None = None
    value: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data."""
        return attrs.asdict(self, recurse=False) | {"hooks": list(self.hooks)}


@attrs.frozen
class PluginConflict:
    """A name several plugin contributions claim, as ``harness plugins`` reports it.

    A conflict is not a load failure (every plugin involved loaded), but any agent that
    would use the contributions refuses to start (``ToolNameConflictError`` for tools,
    ``HarnessConfigurationError`` for harness ids) until one plugin is disabled.

    Attributes:
        kind: ``"tool"`` (a host tool name from ``harness_tools``) or ``"harness"`` (a
            harness id from ``harness_adapters``).
        name: the contested tool name or harness id.
        plugins: the contributing plugin names, sorted; a name appears twice when one
            plugin contributes the name twice.
    """

    kind: Literal["tool", "harness"]
    name: str
    plugins: tuple[str, ...]

    @property
    def message(self) -> str:
        """One line naming the kind, the name and every contributing plugin."""
        what = "tool" if self.kind == "tool" else "harness id"
        names = list(dict.fromkeys(self.plugins))
        if len(names) == 1:
            return f"{what} {self.name!r} is contributed {len(self.plugins)} times by plugin {names[0]!r}"
        listed = ", ".join(map(repr, names[:-1])) + f" and {names[-1]!r}"
        return f"{what} {self.name!r} is contributed by plugins {listed}; disable one with {DISABLE_ENV}"

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "name", "plugins", "message"}`` as JSON data."""
        return {"kind": self.kind, "name": self.name, "plugins": list(self.plugins), "message": self.message}


def _core_plugins() -> dict[str, object]:
    from harness_core.execution import DefaultExecutor
    from harness_core.plugins.policies import PermissionModePolicy, ToolApprovalPolicy
    from harness_core.plugins.projection import DefaultProjection

    return {
        "permission-mode": PermissionModePolicy(),
        "tool-approval": ToolApprovalPolicy(),
        "default-executor": DefaultExecutor(),
        "default-projection": DefaultProjection(),
    }


CORE_PLUGINS: tuple[str, ...] = ("permission-mode", "tool-approval", "default-executor", "default-projection")
"""Names of the core's own default plugins."""


def _env_flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _distribution_of(ep: EntryPointLike) -> tuple[str | None, str | None]:
    """``(name, version)`` of the distribution declaring ``ep``; ``(None, None)`` if unknown."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    try:
        name = getattr(dist, "name", None) or dist.metadata["Name"]
    except Exception:  # broken metadata must not stop discovery
        name = None
    try:
        version = dist.version
    except Exception:
        version = None
    return (str(name) if name else None), (str(version) if version else None)


def _describe(exc: BaseException) -> str:
    """``"Type: message"`` on one line (pluggy's validation messages span several)."""
    message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class _RegistrationError(Exception):
    """Internal: a plugin was rejected; ``message`` is what its record shows."""

    def __init__(self, message: str, cause: BaseException) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause


_Snapshot = tuple[frozenset[object], dict[str, "PluginRecord"]]


class HarnessPluginManager:
    """A pluggy plugin manager for the ``harness`` project, with load isolation and records.

    Args:
        env: environment consulted for ``HARNESS_STRICT_PLUGINS`` and
            ``HARNESS_DISABLE_PLUGINS`` (default: ``os.environ``).
        register_core: register the core default plugins.
    """

    def __init__(self, *, env: Mapping[str, str] | None = None, register_core: bool = True) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self._env = os.environ if env is None else env
        self._records: dict[str, PluginRecord] = {}
        self.hooks = HookFacade(self)
        if register_core:
            for name, plugin in _core_plugins().items():
                if name in self.disabled_names:
                    self._records[name] = PluginRecord(name, kind="core", status="disabled")
                    continue
                self.pm.register(plugin, name=name)
                self._records[name] = PluginRecord(
                    name, "harness-core", _version("harness-core"), "core", self._hooks_of(plugin)
                )

    # -- configuration ---------------------------------------------------------------

    @property
    def strict(self) -> bool:
        """True when ``HARNESS_STRICT_PLUGINS`` is set: the first failure raises."""
        return _env_flag(self._env, STRICT_ENV)

    @property
    def disabled_names(self) -> frozenset[str]:
        """Plugin names blocked by ``HARNESS_DISABLE_PLUGINS``."""
        raw = self._env.get(DISABLE_ENV, "")
        return frozenset(part.strip() for part in raw.split(",") if part.strip())

    # -- registration ----------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None, *, distribution: str | None = None,
                 version: str | None = None, value: str | None = None) -> PluginRecord:
        """Register an in-memory plugin (module, class instance...) with validation.

        Args:
            plugin: a module or object with ``@hookimpl`` functions.
            name: the plugin name (default: pluggy's canonical name, a module's
                ``__name__``).
            distribution / version / value: shown by ``harness plugins``.

        Returns:
            Its record; ``status == "failed"`` when it was rejected, in which case
            everything registered meanwhile was rolled back. Registering a name that is
            already loaded returns the existing record and registers nothing.

        Raises:
            PluginLoadError: it was rejected and strict mode is on.
        """
        name = name or self.pm.get_canonical_name(plugin)
        if name in self._records and self._records[name].status == "loaded":
            return self._records[name]
        if name in self.disabled_names:
            record = PluginRecord(name, distribution, version, status="disabled", value=value)
            self._records[name] = record
            return record
        snapshot = self._snapshot()
        try:
            return self._register(plugin, name, distribution, version, value)
        except _RegistrationError as exc:
            self._rollback(snapshot)
            return self._fail(name, distribution, version, value, exc.message, exc.cause)

    def load_entry_points(self, entry_points: Iterable[EntryPointLike] | None = None) -> list[PluginRecord]:
        """Discover and register plugins from the ``harness`` entry-point group.

        One entry point at a time: a disabled name is never imported; an entry point that
        refers to a class registers an instance made without arguments; a failure (import,
        instantiation, validation, a raising registration hook) rolls back whatever was
        registered since that entry point started loading (side effects of its import
        included), warns with :class:`PluginLoadWarning` and moves on.

        Args:
            entry_points: entry points to load instead of the installed ones (tests pass
                objects with ``name``, ``value``, ``load()`` and optionally ``dist``).

        Returns:
            The records of the plugins seen (loaded, failed or disabled), in order.

        Raises:
            PluginLoadError: a plugin failed and strict mode is on.
        """
        if entry_points is None:
            entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        seen: list[PluginRecord] = []
        for ep in entry_points:
            dist, version = _distribution_of(ep)
            existing = self._records.get(ep.name)
            if existing is not None and existing.status == "loaded":
                seen.append(existing)
                continue
            if ep.name in self.disabled_names:
                record = PluginRecord(ep.name, dist, version, status="disabled", value=ep.value)
                self._records[ep.name] = record
                seen.append(record)
                continue
            snapshot = self._snapshot()
            try:
                plugin = self._load(ep)
                seen.append(self._register(plugin, ep.name, dist, version, ep.value))
            except _RegistrationError as exc:
                self._rollback(snapshot)
                seen.append(self._fail(ep.name, dist, version, ep.value, exc.message, exc.cause))
        return seen

    @staticmethod
    def _load(ep: EntryPointLike) -> object:
        try:
            plugin = ep.load()
        except (Exception, SystemExit) as exc:
            raise _RegistrationError(f"import failed: {_describe(exc)}", exc) from exc
        if isinstance(plugin, type):
            try:
                plugin = plugin()
            except Exception as exc:
                raise _RegistrationError(
                    f"could not instantiate plugin class {plugin.__qualname__}: {_describe(exc)}", exc
                ) from exc
        return plugin

    def _register(self, plugin: object, name: str, distribution: str | None, version: str | None,
                  value: str | None) -> PluginRecord:
        try:
            self.pm.register(plugin, name=name)
            self._validate(plugin, name)
        except (Exception, SystemExit) as exc:
            raise _RegistrationError(f"registration failed: {_describe(exc)}", exc) from exc
        record = PluginRecord(name, distribution, version, self._kind_of(name, plugin), self._hooks_of(plugin),
                              value=value)
        self._records[name] = record
        return record

    def _snapshot(self) -> _Snapshot:
        return frozenset(self.pm.get_plugins()), dict(self._records)

    def _rollback(self, snapshot: _Snapshot) -> None:
        plugins, records = snapshot
        for added in set(self.pm.get_plugins()) - plugins:
            self.pm.unregister(added)
        self._records = dict(records)

    def _fail(self, name: str, dist: str | None, version: str | None, value: str | None,
              message: str, exc: BaseException) -> PluginRecord:
        record = PluginRecord(name, dist, version, status="failed", error=message, value=value)
        self._records[name] = record
        dist_label = " ".join(part for part in (dist, version) if part) or None
        where = f"plugin {name!r}" + (f" from distribution {dist_label}" if dist_label else "")
        if self.strict:
            raise PluginLoadError(f"{where}: {message}", plugin=name, distribution=dist_label) from exc
        warnings.warn(f"harness: skipped {where}: {message}", PluginLoadWarning, stacklevel=4)
        return record

    def _validate(self, plugin: object, name: str) -> None:
        callers = self.pm.get_hookcallers(plugin) or []
        for caller in callers:
            if not caller.has_spec():
                raise HarnessConfigurationError(
                    f"{caller.name!r} is not a harness hook (known hooks: {', '.join(hookspecs.HOOK_NAMES)})"
                )
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin and impl.kwargnames:
                    raise HarnessConfigurationError(
                        f"{caller.name}: argument(s) {', '.join(impl.kwargnames)} have default values, "
                        "which pluggy never passes; remove the defaults"
                    )
        implemented = {caller.name for caller in callers}
        for hook_name in hookspecs.HOOK_NAMES:
            if hook_name not in implemented and callable(getattr(plugin, hook_name, None)):
                raise HarnessConfigurationError(
                    f"{hook_name} is defined without the @hookimpl decorator, so it would never be "
                    "called; decorate it with harness_core.hookimpl"
                )
        for hook_name in _REGISTRATION_HOOKS:
            caller = getattr(self.pm.hook, hook_name)
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin and not (impl.hookwrapper or impl.wrapper):
                    result = impl.function()
                    _check_registration_result(hook_name, result)

    # -- introspection ---------------------------------------------------------------

    def records(self) -> list[PluginRecord]:
        """Every plugin seen, core defaults first, then by name."""
        return sorted(self._records.values(), key=lambda r: (r.kind != "core", r.name))

    def record(self, name: str) -> PluginRecord | None:
        """The record of the plugin named ``name``, or ``None`` if it was never seen."""
        return self._records.get(name)

    def plugin_name(self, plugin: object) -> str:
        """The registered name of ``plugin``."""
        return self.pm.get_name(plugin) or repr(plugin)

    def _hooks_of(self, plugin: object) -> tuple[str, ...]:
        return tuple(sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ()))

    def _kind_of(self, name: str, plugin: object) -> PluginKind:
        hooks = set(self._hooks_of(plugin))
        if name in CORE_PLUGINS:
            return "core"
        if "harness_adapters" in hooks or "harness_declare_builtins" in hooks:
            return "adapter"
        if "harness_tools" in hooks:
            return "tools"
        if hooks & {"harness_approve_call", "harness_filter_tools"}:
            return "policy"
        return "other"


def _check_registration_result(hook_name: str, result: object) -> None:
    if result is None:
        return
    if hook_name == "harness_adapters":
        if not isinstance(result, Mapping):
            raise TypeError(f"harness_adapters must return a mapping of harness id to factory, got {type(result).__name__}")
        for key, factory in result.items():
            if not isinstance(key, str) or not callable(factory):
                raise TypeError(f"harness_adapters: entry {key!r} must map a harness id to a callable factory")
    elif hook_name == "harness_tools":
        from harness_core.tools.definition import HarnessTool

        items = list(result) if isinstance(result, Iterable) else None
        if items is None or not all(isinstance(t, HarnessTool) for t in items):
            raise TypeError("harness_tools must return a sequence of HarnessTool (use define_harness_tool)")
    elif hook_name == "harness_cli_commands":
        import click

        items = list(result) if isinstance(result, Iterable) else None
        if items is None or not all(isinstance(c, click.Command) for c in items):
            raise TypeError("harness_cli_commands must return a sequence of click.Command")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class HookFacade:
    """Typed calls to every hook; the only code that touches ``pm.hook``."""

    def __init__(self, manager: HarnessPluginManager) -> None:
        self._manager = manager
        self._hook = manager.pm.hook

    def _per_plugin(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        caller = getattr(self._hook, hook_name)
        results: list[tuple[str, Any]] = []
        for impl in reversed(caller.get_hookimpls()):
            if impl.hookwrapper or impl.wrapper:
                continue
            args = {arg: kwargs[arg] for arg in impl.argnames}
            results.append((impl.plugin_name, impl.function(**args)))
        return results

    def adapters(self) -> dict[str, tuple[str, AdapterFactory]]:
        """``{harness_id: (plugin name, factory)}``.

        Raises:
            HarnessConfigurationError: two plugins contribute the same harness id.
        """
        found: dict[str, tuple[str, AdapterFactory]] = {}
        for plugin, result in self._per_plugin("harness_adapters"):
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
        """
        tools: dict[str, BuiltinTool] = {}
        for plugin, result in self._per_plugin("harness_declare_builtins", harness_id=harness_id):
            for tool in result or ():
                if tool.name in tools:
                    raise HarnessConfigurationError(
                        f"built-in {tool.name!r} of harness {harness_id!r} is declared twice (last by plugin {plugin!r})"
                    )
                tools[tool.name] = tool
        return list(tools.values())

    def tools(self) -> dict[str, tuple[str, HarnessTool]]:
        """Host tools from every tool pack: ``{name: (plugin name, tool)}``.

        Raises:
            ToolNameConflictError: two plugins contribute the same name (names both).
        """
        found: dict[str, tuple[str, HarnessTool]] = {}
        for plugin, result in self._per_plugin("harness_tools"):
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
        registration hook raises now is skipped (its problem shows when an agent uses it).

        Returns:
            The conflicts, tools first, each kind sorted by name.
        """
        found: list[PluginConflict] = []
        hooks: tuple[tuple[Literal["tool", "harness"], str], ...] = (
            ("tool", "harness_tools"), ("harness", "harness_adapters"),
        )
        for kind, hook_name in hooks:
            sources: dict[str, list[str]] = {}
            caller = getattr(self._hook, hook_name)
            for impl in reversed(caller.get_hookimpls()):
                if impl.hookwrapper or impl.wrapper:
                    continue
                try:
                    result = impl.function()
                    names = (
                        [tool.name for tool in result or ()] if kind == "tool" else [str(key) for key in result or {}]
                    )
                except Exception:
                    continue
                for name in names:
                    sources.setdefault(name, []).append(impl.plugin_name)
            found.extend(
                PluginConflict(kind, name, tuple(sorted(plugins)))
                for name, plugins in sorted(sources.items()) if len(plugins) > 1
            )
        return found

    def _label(self, plugin: str) -> str:
        """``'name'`` plus ``(distribution version)`` when known."""
        record = self._manager.record(plugin)
        if record is None or record.distribution is None:
            return repr(plugin)
        dist = " ".join(part for part in (record.distribution, record.version) if part)
        return f"{plugin!r} ({dist})"

    def filter_tools(self, tools: Sequence[HarnessTool | BuiltinTool], request: FilterRequest) -> frozenset[str]:
        """The union of names every policy removes."""
        removed: set[str] = set()
        for result in self._hook.harness_filter_tools(tools=list(tools), request=request):
            removed.update(result or ())
        return frozenset(removed)

    def approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
        """Every policy's decision, merged (deny wins), with the deciding plugin recorded.

        A policy that raises counts as a denial that names it and the error.
        """
        decisions: list[ApprovalDecision] = []
        caller = self._hook.harness_approve_call
        for impl in reversed(caller.get_hookimpls()):
            args = {"call": call, "context": context}
            try:
                decision = impl.function(**{a: args[a] for a in impl.argnames})
            except Exception as exc:
                decision = ApprovalDecision(
                    ApprovalStatus.DENIED,
                    f"approval policy {impl.plugin_name!r} failed ({_describe(exc)}); denied for safety",
                )
            if decision is None:
                continue
            if not isinstance(decision, ApprovalDecision):
                decision = ApprovalDecision(
                    ApprovalStatus.DENIED,
                    f"approval policy {impl.plugin_name!r} returned {type(decision).__name__}, not an ApprovalDecision; denied for safety",
                )
            if not decision.plugin:
                decision = attrs.evolve(decision, plugin=impl.plugin_name)
            if decision.reason is None and decision.status in (ApprovalStatus.DENIED, ApprovalStatus.USER_APPROVAL):
                verb = "denied" if decision.status is ApprovalStatus.DENIED else "approval requested"
                decision = attrs.evolve(decision, reason=f"{verb} by approval policy {decision.plugin!r}")
            decisions.append(decision)
        return merge_decisions(decisions)

    async def execute_tool(self, call: ToolCall, context: ExecutionContext) -> ToolOutput:
        """Run a host tool call through ``harness_execute_tool`` (wrappers included).

        Raises:
            HarnessConfigurationError: no implementation handled the call.
        """
        awaitable = self._hook.harness_execute_tool(call=call, context=context)
        if awaitable is None:
            raise HarnessConfigurationError(
                f"no plugin executed tool {call.tool_name!r}; is the default-executor plugin disabled?"
            )
        output = await awaitable
        if not isinstance(output, ToolOutput):
            from harness_core.tools.output import normalize_output

            output = normalize_output(output)
        return output

    def project_event(self, event: object, context: ProjectionContext) -> list[Part]:
        """The parts one native event becomes; a projection error becomes an ``error`` part."""
        try:
            parts = self._hook.harness_project_event(event=event, context=context)
        except Exception as exc:
            return [ErrorPart(error=f"could not project {type(event).__name__} event from harness "
                              f"{context.harness_id!r}: {_describe(exc)}", error_type="projection")]
        return list(parts or ())

    def cli_commands(self) -> list[tuple[str, click.Command]]:
        """``(plugin name, command)`` pairs contributed by plugins."""
        out: list[tuple[str, click.Command]] = []
        for plugin, result in self._per_plugin("harness_cli_commands"):
            out.extend((plugin, command) for command in result or ())
        return out


def create_plugin_manager(*, load_entry_points: bool = True, env: Mapping[str, str] | None = None,
                          plugins: Iterable[object] = (), register_core: bool = True) -> HarnessPluginManager:
    """Build an isolated plugin manager.

    Args:
        load_entry_points: discover installed plugins.
        env: environment for the ``HARNESS_*`` switches (default ``os.environ``).
        plugins: extra in-memory plugins to register after discovery.
        register_core: register the core defaults.
    """
    manager = HarnessPluginManager(env=env, register_core=register_core)
    if load_entry_points:
        manager.load_entry_points()
    for plugin in plugins:
        manager.register(plugin)
    return manager


_default: HarnessPluginManager | None = None


def get_plugin_manager() -> HarnessPluginManager:
    """The process-wide plugin manager, created (and plugins discovered) on first use.

    The manager is published before discovery starts, so a plugin that calls this
    function while it is being imported gets the manager being filled rather than
    starting a second discovery.
    """
    global _default
    if _default is None:
        _default = HarnessPluginManager()
        _default.load_entry_points()
    return _default


def reset_plugin_manager() -> None:
    """Forget the process-wide manager (the next :func:`get_plugin_manager` rediscovers)."""
    global _default
    _default = None
