"""What the plugin manager records about each plugin, and small discovery helpers.

:class:`PluginRecord` is one plugin as ``harness plugins`` lists it; :class:`PluginConflict`
is a name several contributions claim. The helpers read entry-point distributions and
format errors on one line.
"""

from __future__ import annotations

import importlib.metadata
import os
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

import attrs
import pluggy

from harness_core import hookspecs

__all__ = [
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "GUARD_HOOKS",
    "STRICT_ENV",
    "EntryPointLike",
    "PluginConflict",
    "PluginKind",
    "PluginLoadWarning",
    "PluginRecord",
    "PluginStatus",
    "default_plugin_name",
    "describe_error",
    "distribution_of",
    "env_flag",
    "version_of",
]

ENTRY_POINT_GROUP = hookspecs.PROJECT_NAME
STRICT_ENV = "HARNESS_STRICT_PLUGINS"
DISABLE_ENV = "HARNESS_DISABLE_PLUGINS"

GUARD_HOOKS: tuple[str, ...] = ("harness_approve_call", "harness_filter_tools")
"""The hooks that guard what may run: a plugin implementing one fails closed."""

PluginKind = Literal["core", "adapter", "tools", "policy", "other"]
PluginStatus = Literal["loaded", "failed", "disabled"]


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
        kind: core, adapter, tools, policy or other (from the hooks it implements; a failed
            plugin that implements, or may implement, an approval or filter hook is a policy).
        hooks: the hooks it implements, sorted (for a plugin that failed to import: the
            guard hooks its source defines, read without running it).
        status: loaded, failed or disabled.
        error: why it failed, for failed plugins.
        value: the entry point's ``module:attr`` reference, when discovered.
        guard: not in :meth:`to_json`: set on a failed plugin that implements (or may
            implement) ``harness_approve_call`` / ``harness_filter_tools``, saying which (or
            why it may); agents refuse to start until it is fixed or disabled (fail closed).
    """

    name: str
    distribution: str | None = None
    version: str | None = None
    kind: PluginKind = "other"
    hooks: tuple[str, ...] = ()
    status: PluginStatus = "loaded"
    error: str | None = None
    value: str | None = None
    guard: str | None = attrs.field(default=None, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data (every attribute but ``guard``)."""
        data = attrs.asdict(
            self, recurse=False, filter=lambda attribute, _: attribute.name != "guard"
        )
        return data | {"hooks": list(self.hooks)}

    @property
    def label(self) -> str:
        """``'name'`` plus ``(distribution version)`` when known."""
        if self.distribution is None:
            return repr(self.name)
        dist = " ".join(part for part in (self.distribution, self.version) if part)
        return f"{self.name!r} ({dist})"


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
        return {
            "kind": self.kind,
            "name": self.name,
            "plugins": list(self.plugins),
            "message": self.message,
        }


def env_flag(env: Mapping[str, str], name: str) -> bool:
    """True when ``env[name]`` is 1/true/yes/on (any case)."""
    return env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def distribution_of(ep: EntryPointLike) -> tuple[str | None, str | None]:
    """``(name, version)`` of the distribution declaring ``ep``; ``(None, None)`` if unknown."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    if isinstance(dist, importlib.metadata.Distribution):
        # A real distribution's name and version both come from METADATA: parse it once
        # (each property parses the whole file again, the long description included).
        try:
            metadata = dist.metadata
        except Exception:  # broken metadata must not stop discovery
            return None, None
        return _field(metadata, "Name"), _field(metadata, "Version")
    try:
        name = getattr(dist, "name", None) or dist.metadata["Name"]
    except Exception:  # broken metadata must not stop discovery
        name = None
    try:
        version = dist.version
    except Exception:
        version = None
    return (str(name) if name else None), (str(version) if version else None)


def _field(metadata: Any, key: str) -> str | None:
    """One METADATA field as text, ``None`` when missing, empty or unreadable."""
    try:
        value = metadata[key]
    except Exception:
        return None
    return str(value) if value else None


def version_of(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or ``None``."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def default_plugin_name(pm: pluggy.PluginManager, plugin: object) -> str:
    """The name an in-memory plugin registers under when none is given: a module's or
    class's ``__name__``; for an instance its class as ``module.QualName``, with ``#2``,
    ``#3``... when another object already holds that name in ``pm``."""
    own = getattr(plugin, "__name__", None)
    if isinstance(own, str) and own:
        return own
    base = f"{type(plugin).__module__}.{type(plugin).__qualname__}"
    name, count = base, 1
    while (holder := pm.get_plugin(name)) is not None and holder is not plugin:
        count += 1
        name = f"{base}#{count}"
    return name


def describe_error(exc: BaseException, *, origin: bool = False) -> str:
    """``"Type: message"`` on one line (pluggy's validation messages span several).

    With ``origin=True`` (discovery and hook failures, shown to the host, never to a model)
    the line ends with `` (at path:line)``, the innermost frame of the traceback outside
    harness-core, pluggy and the import machinery: the plugin's own line that failed.
    """
    message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    described = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    where = _origin_of(exc) if origin else None
    return f"{described} (at {where})" if where else described


_SKIPPED_ROOTS: tuple[str, ...] = tuple(
    str(root) + os.sep
    for root in (
        Path(__file__).resolve().parents[1],
        Path(pluggy.__file__).resolve().parent,
        Path(attrs.__file__).resolve().parent,
    )
)


def _origin_of(exc: BaseException) -> str | None:
    """``"path:line"`` of the innermost traceback frame in the plugin's own code, if any."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        filename = frame.filename
        if filename.startswith("<") or str(Path(filename).resolve()).startswith(_SKIPPED_ROOTS):
            continue
        if f"{os.sep}importlib{os.sep}" in filename:
            continue
        found = frame
    if found is None:
        return None
    path = Path(found.filename)
    try:
        shown = str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        shown = str(path)
    return f"{shown}:{found.lineno}"
