"""Plugin discovery, load isolation and records: :class:`HarnessPluginManager`.

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
* **fail closed:** a failed plugin that implements ``harness_approve_call`` or
  ``harness_filter_tools`` (for one that failed to import: whose source defines one, read
  without running it; a source that cannot be read counts as one) is recorded as a failed
  *guard*: :meth:`HarnessPluginManager.raise_for_failed_guards` (called at agent
  construction) raises :class:`~harness_core.errors.HarnessConfigurationError` naming it
  and the error, and every approval is denied, until it is fixed or disabled;
* ``HARNESS_STRICT_PLUGINS=1`` turns the first failure into a
  :class:`~harness_core.errors.PluginLoadError`;
* ``HARNESS_DISABLE_PLUGINS=a,b`` blocks plugins by name before they are imported (core
  defaults included);
* loading twice registers nothing twice.

Each registered implementation gets an attributing function
(:mod:`harness_core.plugins.attribution`); :class:`~harness_core.plugins.facade.HookFacade`
(``manager.hooks``) is the only place that calls ``pm.hook``.

**Isolation** (tests, plugin authors): ``create_plugin_manager(load_entry_points=False,
env={}, plugins=[...])`` holds the core defaults and exactly the plugins named, whatever
else is installed; pass it as ``HarnessAgent(plugin_manager=...)``.
:func:`harness_core.testing.isolated_plugin_manager` does the same.
:func:`get_plugin_manager` returns the process-wide one (every installed plugin).
"""

from __future__ import annotations

import importlib.metadata
import os
import warnings
from collections.abc import Iterable, Mapping

import pluggy

from harness_core import hookspecs
from harness_core.errors import HarnessConfigurationError, PluginLoadError
from harness_core.plugins.attribution import PluginHookError, attribute
from harness_core.plugins.defaults import CORE_PLUGINS, core_plugins
from harness_core.plugins.facade import HookFacade
from harness_core.plugins.records import (
    DISABLE_ENV,
    ENTRY_POINT_GROUP,
    GUARD_HOOKS,
    STRICT_ENV,
    EntryPointLike,
    PluginConflict,
    PluginKind,
    PluginLoadWarning,
    PluginRecord,
    default_plugin_name,
    describe_error,
    distribution_of,
    env_flag,
    version_of,
)
from harness_core.plugins.validation import guard_hooks_in_source, guard_names_of, validate_plugin

__all__ = [
    "CORE_PLUGINS",
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "STRICT_ENV",
    "HarnessPluginManager",
    "HookFacade",
    "PluginConflict",
    "PluginHookError",
    "PluginKind",
    "PluginLoadWarning",
    "PluginRecord",
    "create_plugin_manager",
    "get_plugin_manager",
    "reset_plugin_manager",
]


class _RegistrationError(Exception):
    """Internal: a plugin was rejected; ``message`` is what its record shows."""

    def __init__(self, message: str, cause: BaseException, guard: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause
        self.guard = guard


def _guard_of_object(plugin: object) -> str | None:
    names = guard_names_of(plugin)
    return f"implements {' and '.join(names)}" if names else None


def _guard_of_source(value: str) -> str | None:
    names, problem = guard_hooks_in_source(value)
    if problem is not None:
        return f"may implement {' or '.join(GUARD_HOOKS)} ({problem})"
    return f"implements {' and '.join(names)}" if names else None


_Snapshot = tuple[frozenset[object], dict[str, PluginRecord]]


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
        self._core: set[str] = set()
        self.hooks = HookFacade(self)
        if register_core:
            core_version = version_of("harness-agent-core")  # once: each look-up parses METADATA
            for name, plugin in core_plugins().items():
                self._core.add(name)
                if name in self.disabled_names:
                    self._records[name] = PluginRecord(name, kind="core", status="disabled")
                    continue
                self.pm.register(plugin, name=name)
                attribute(self.pm, plugin)
                self._records[name] = PluginRecord(
                    name, "harness-agent-core", core_version, "core", self._hooks_of(plugin)
                )

    # -- configuration ---------------------------------------------------------------

    @property
    def strict(self) -> bool:
        """True when ``HARNESS_STRICT_PLUGINS`` is set: the first failure raises."""
        return env_flag(self._env, STRICT_ENV)

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
            name: the plugin name (default: a module's or class's ``__name__``; for an
                instance, its class as ``module.QualName``, with ``#2``, ``#3``... when
                another object already holds that name).
            distribution / version / value: shown by ``harness plugins``.

        Returns:
            Its record; ``status == "failed"`` when it was rejected, in which case
            everything registered meanwhile was rolled back. Registering a name that is
            already loaded returns the existing record and registers nothing.

        Raises:
            PluginLoadError: it was rejected and strict mode is on.
        """
        name = name or default_plugin_name(self.pm, plugin)
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
            return self._fail(name, distribution, version, value, exc)

    def load_entry_points(self, entry_points: Iterable[EntryPointLike] | None = None) -> list[PluginRecord]:
        """Discover and register plugins from the ``harness`` entry-point group.

        One entry point at a time: a disabled name is never imported; an entry point that
        refers to a class registers an instance made without arguments; a failure (import,
        instantiation, validation, a raising registration hook) rolls back whatever was
        registered since that entry point started loading (side effects of its import
        included), warns with :class:`PluginLoadWarning` and moves on (a failed guard
        plugin is recorded so agents fail closed).

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
            dist, version = distribution_of(ep)
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
                seen.append(self._fail(ep.name, dist, version, ep.value, exc))
        return seen

    @staticmethod
    def _load(ep: EntryPointLike) -> object:
        try:
            plugin = ep.load()
        except (Exception, SystemExit) as exc:
            raise _RegistrationError(f"import failed: {describe_error(exc, origin=True)}", exc, _guard_of_source(ep.value)) from exc
        if isinstance(plugin, type):
            try:
                plugin = plugin()
            except Exception as exc:
                raise _RegistrationError(
                    f"could not instantiate plugin class {plugin.__qualname__}: {describe_error(exc, origin=True)}", exc,
                    _guard_of_object(plugin),
                ) from exc
        return plugin

    def _register(self, plugin: object, name: str, distribution: str | None, version: str | None,
                  value: str | None) -> PluginRecord:
        try:
            self.pm.register(plugin, name=name)
            validate_plugin(self.pm, plugin)
        except (Exception, SystemExit) as exc:
            raise _RegistrationError(
                f"registration failed: {describe_error(exc, origin=True)}", exc, _guard_of_object(plugin)
            ) from exc
        attribute(self.pm, plugin)
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
              exc: _RegistrationError) -> PluginRecord:
        guard_hooks = tuple(hook for hook in GUARD_HOOKS if exc.guard and hook in exc.guard)
        record = PluginRecord(name, dist, version, "policy" if exc.guard else "other", guard_hooks,
                              status="failed", error=exc.message, value=value, guard=exc.guard)
        self._records[name] = record
        dist_label = " ".join(part for part in (dist, version) if part) or None
        where = f"plugin {name!r}" + (f" from distribution {dist_label}" if dist_label else "")
        if self.strict:
            raise PluginLoadError(f"{where}: {exc.message}", plugin=name, distribution=dist_label) from exc.cause
        warnings.warn(f"harness: skipped {where}: {exc.message}", PluginLoadWarning, stacklevel=4)
        return record

    def mark_failed(self, name: str, error: str) -> None:
        """Record that the loaded plugin ``name`` failed later (a hook raised) and unregister
        it, so it is skipped from now on; ``harness plugins`` lists it as failed."""
        record = self._records.get(name)
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)
        if record is not None:
            record.status = "failed"
            record.error = error

    # -- fail closed -----------------------------------------------------------------

    def failed_guards(self) -> list[PluginRecord]:
        """Failed plugins that implement (or may implement) an approval or filter hook, by name."""
        failed = [r for r in self._records.values() if r.status == "failed" and r.guard is not None]
        return sorted(failed, key=lambda r: r.name) if failed else failed

    def raise_for_failed_guards(self) -> None:
        """Refuse to build an agent while a guard plugin is failed (fail closed).

        Raises:
            HarnessConfigurationError: naming every failed guard plugin, why it counts as
                one, and its error; disabling it (``HARNESS_DISABLE_PLUGINS``) is the opt-out.
        """
        failed = self.failed_guards()
        if not failed:
            return
        lines = "; ".join(f"plugin {r.label} {r.guard} but failed to load: {r.error}" for r in failed)
        names = ",".join(r.name for r in failed)
        raise HarnessConfigurationError(
            f"{lines}. Its approvals or filters cannot be enforced, so no agent is built; fix it, or disable "
            f"it with {DISABLE_ENV}={names}"
        )

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
        if name in self._core:
            return "core"
        if "harness_adapters" in hooks or "harness_declare_builtins" in hooks:
            return "adapter"
        if "harness_tools" in hooks:
            return "tools"
        if hooks & set(GUARD_HOOKS):
            return "policy"
        return "other"


def create_plugin_manager(*, load_entry_points: bool = True, env: Mapping[str, str] | None = None,
                          plugins: Iterable[object] = (), register_core: bool = True) -> HarnessPluginManager:
    """Build an isolated plugin manager.

    ``create_plugin_manager(load_entry_points=False, env={}, plugins=[my_policy])`` is the
    way to test a plugin alone: it holds the core defaults (unless ``register_core=False``)
    and exactly the plugins named, so no other installed plugin (another policy, say) and no
    ``HARNESS_*`` variable of the environment changes the result.

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
