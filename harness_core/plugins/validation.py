"""Registration checks, and reading a plugin's hooks from its source without running it.

:func:`validate_plugin` refuses a plugin pluggy accepted but that would misbehave (an
unknown ``harness_*`` hook, an argument with a default, a hook function without
``@hookimpl``, a registration hook returning the wrong shape). :func:`check_result` is the
shape check of the registration hooks, used at load time and on every later call.

:func:`guard_hooks_in_source` answers "could this plugin be an approval policy or a tool
filter?" for a plugin whose import failed, so the manager can fail closed. It locates the
entry point's module with :class:`importlib.machinery.PathFinder` level by level (no
package ``__init__`` runs), parses it with :mod:`ast`, and follows imports within the same
top-level package (at most :data:`MAX_SCANNED_MODULES` modules). A hook defined in another
distribution and re-exported without naming it is not seen; a source that cannot be found,
read or parsed counts as a possible policy.
"""

from __future__ import annotations

import ast
import importlib.machinery
import reprlib
import sys
from collections.abc import Iterable, Mapping

import pluggy

from harness_core import hookspecs
from harness_core.errors import HarnessConfigurationError
from harness_core.plugins.records import GUARD_HOOKS
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = [
    "MAX_SCANNED_MODULES",
    "REGISTRATION_HOOKS",
    "check_result",
    "guard_hooks_in_source",
    "guard_names_of",
    "validate_plugin",
]

REGISTRATION_HOOKS: tuple[str, ...] = ("harness_adapters", "harness_tools", "harness_cli_commands", "harness_sandboxes")
"""Hooks without arguments, called once at load time to check their shape."""

MAX_SCANNED_MODULES = 32
"""How many modules :func:`guard_hooks_in_source` reads for one entry point."""


def check_result(hook_name: str, result: object) -> None:
    """Raise ``TypeError`` when a registration hook's result has the wrong shape.

    Shapes: ``harness_adapters`` and ``harness_sandboxes`` a mapping of str to callable; ``harness_tools`` an
    iterable of :class:`HarnessTool`; ``harness_declare_builtins`` an iterable of
    :class:`BuiltinTool`; ``harness_cli_commands`` an iterable of
    :class:`click.Command`; ``None`` always passes. Other hooks pass unchecked.
    """
    if result is None:
        return
    if hook_name == "harness_adapters":
        if not isinstance(result, Mapping):
            raise TypeError(f"harness_adapters must return a mapping of harness id to factory, got {type(result).__name__}")
        for key, factory in result.items():
            if not isinstance(key, str) or not callable(factory):
                raise TypeError(f"harness_adapters: entry {key!r} must map a harness id to a callable factory")
    elif hook_name == "harness_sandboxes":
        if not isinstance(result, Mapping):
            raise TypeError(f"harness_sandboxes must return a mapping of sandbox name to factory, got {type(result).__name__}")
        for key, factory in result.items():
            if not isinstance(key, str) or key == "local" or not callable(factory):
                raise TypeError(f"harness_sandboxes: entry {key!r} must map a sandbox name (not 'local') to a callable factory")
    elif hook_name == "harness_tools":
        items = _items(hook_name, result, "a sequence of HarnessTool (use define_harness_tool)")
        for item in items:
            if not isinstance(item, HarnessTool):
                raise TypeError(f"harness_tools must return a sequence of HarnessTool (use define_harness_tool), "
                                f"got {_show(item)} in it")
            _check_tool_functions(item)
    elif hook_name == "harness_declare_builtins":
        for item in _items(hook_name, result, "a sequence of BuiltinTool or None"):
            if not isinstance(item, BuiltinTool):
                raise TypeError(f"harness_declare_builtins must return a sequence of BuiltinTool or None, "
                                f"got {_show(item)} in it")
    elif hook_name == "harness_cli_commands":
        import click  # only plugins with commands pay for it

        for item in _items(hook_name, result, "a sequence of click.Command"):
            if not isinstance(item, click.Command):
                raise TypeError(f"harness_cli_commands must return a sequence of click.Command, got {_show(item)} in it")


def _show(value: object) -> str:
    """``value``'s type and repr, the repr cut to 200 characters (for error messages)."""
    shorten = reprlib.Repr()
    shorten.maxstring = shorten.maxother = 160
    try:
        text = shorten.repr(value)
    except Exception as exc:  # a broken __repr__ still gets named
        text = f"<unprintable: {type(exc).__name__}>"
    return f"{type(value).__name__} {text[:200]}"


def _items(hook_name: str, result: object, shape: str) -> list[object]:
    if not isinstance(result, Iterable) or isinstance(result, str | bytes):
        raise TypeError(f"{hook_name} must return {shape}, got {_show(result)}")
    return list(result)


def _check_tool_functions(tool: HarnessTool) -> None:
    """A tool's functions are callable (``attrs.evolve`` or ``object.__setattr__`` can
    put anything there after :func:`~harness_core.define_harness_tool` checked them)."""
    for field in ("execute", "resources", "to_model_output"):
        value = getattr(tool, field)
        if value is not None and not callable(value):
            raise TypeError(f"harness_tools: tool {tool.name!r}: its {field} is not callable: {_show(value)}")


def validate_plugin(pm: pluggy.PluginManager, plugin: object) -> None:
    """Check a just-registered plugin; raise on the first problem.

    Raises:
        HarnessConfigurationError: an unknown hook, an argument with a default value, or a
            ``harness_*`` hook function without ``@hookimpl``.
        TypeError: a registration hook returned the wrong shape.
        Exception: whatever a registration hook raised.
    """
    callers = pm.get_hookcallers(plugin) or []
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
    for hook_name in REGISTRATION_HOOKS:
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            if impl.plugin is plugin and not (impl.hookwrapper or impl.wrapper):
                check_result(hook_name, impl.function())


def guard_names_of(plugin: object) -> tuple[str, ...]:
    """The guard hooks (:data:`GUARD_HOOKS`) an imported plugin object defines, sorted."""
    return tuple(name for name in GUARD_HOOKS if callable(getattr(plugin, name, None)))


def _find_spec(module: str) -> importlib.machinery.ModuleSpec | None:
    """The spec of ``module`` found on ``sys.path`` without importing its packages."""
    loaded = sys.modules.get(module)
    spec = getattr(loaded, "__spec__", None)
    if isinstance(spec, importlib.machinery.ModuleSpec):
        return spec
    path: list[str] | None = None
    spec = None
    parts = module.split(".")
    for depth in range(len(parts)):
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: depth + 1]), path)
        if spec is None:
            return None
        if depth < len(parts) - 1:
            if spec.submodule_search_locations is None:
                return None
            path = list(spec.submodule_search_locations)
    return spec


def _source(module: str) -> str | None:
    spec = _find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    try:
        with open(spec.origin, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _imported(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """Modules of the same top-level package that ``module``'s source imports."""
    top = module.split(".")[0]
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if package else []
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target:
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == top and name != module}


def guard_hooks_in_source(value: str) -> tuple[tuple[str, ...], str | None]:
    """Which guard hooks the source behind entry point ``value`` (``module:attr``) defines.

    Returns:
        ``(hooks, problem)``: the guard hook names defined (as functions or methods) in
        the module or the modules of its package it imports; ``problem`` says why the
        source could not be read (then assume the plugin may be a policy), else ``None``.
    """
    root = value.partition(":")[0].strip()
    if not root:
        return (), "the entry point names no module"
    seen: set[str] = set()
    todo = [root]
    hooks: set[str] = set()
    while todo and len(seen) < MAX_SCANNED_MODULES:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        source = _source(module)
        if source is None:
            if module == root:
                return (), f"its source ({root}) could not be read"
            continue  # an attribute imported by name, not a module
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as exc:
            if module == root:
                return (), f"its source ({root}) could not be parsed: {exc}"
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in GUARD_HOOKS:
                hooks.add(node.name)
        spec = _find_spec(module)
        todo.extend(_imported(tree, module, bool(spec and spec.submodule_search_locations)) - seen)
    return tuple(sorted(hooks)), None
