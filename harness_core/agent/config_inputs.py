"""Checks of the raw ``HarnessAgent`` arguments that need no other configuration."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness_core.adapter import Adapter
from harness_core.approval import ToolApprovalSetting, parse_tool_approval
from harness_core.errors import HarnessConfigurationError, ToolNameConflictError
from harness_core.plugins.manager import (
    HarnessPluginManager,
    create_plugin_manager,
    get_plugin_manager,
)
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = ["check_tool_approval", "make_adapter", "make_manager", "merge_tools", "name_set", "tool_list"]

_HARNESS_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def tool_list(tools: object) -> list[HarnessTool]:
    if tools is None:
        return []
    if isinstance(tools, HarnessTool):
        return [tools]
    if isinstance(tools, Mapping):
        out: list[HarnessTool] = []
        for key, tool in tools.items():
            if not isinstance(tool, HarnessTool):
                raise HarnessConfigurationError(
                    f"tools[{key!r}] must be a HarnessTool made with define_harness_tool, got {type(tool).__name__}"
                )
            if key != tool.name:
                raise HarnessConfigurationError(
                    f"tools[{key!r}] is the tool named {tool.name!r}; the key must be the tool's name"
                )
            out.append(tool)
        return out
    if isinstance(tools, Iterable) and not isinstance(tools, str | bytes):
        items = list(tools)
        for index, tool in enumerate(items):
            if not isinstance(tool, HarnessTool):
                raise HarnessConfigurationError(
                    f"tools[{index}] must be a HarnessTool made with define_harness_tool, got {type(tool).__name__}"
                )
        return items
    raise HarnessConfigurationError(
        f"tools must be a mapping of name to HarnessTool or a sequence of HarnessTool, got {type(tools).__name__}"
    )


def name_set(value: object, option: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise HarnessConfigurationError(f"{option} must be a list of tool names, got {value!r}")
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise HarnessConfigurationError(f"{option} must contain tool names (strings), got {name!r}")
    return frozenset(names)


def make_manager(plugins: Sequence[object], manager: HarnessPluginManager | None) -> HarnessPluginManager:
    if isinstance(plugins, str | bytes) or not isinstance(plugins, Iterable):
        raise HarnessConfigurationError(f"plugins must be a list of plugin objects, got {type(plugins).__name__}")
    plugins = list(plugins)
    if manager is None:
        if not plugins:
            default = get_plugin_manager()
            default.raise_for_failed_guards()  # a failed policy plugin: fail closed
            return default
        manager = create_plugin_manager()
    elif not isinstance(manager, HarnessPluginManager):
        raise HarnessConfigurationError(
            f"plugin_manager must be a HarnessPluginManager (see create_plugin_manager), got {type(manager).__name__}"
        )
    for index, plugin in enumerate(plugins):
        record = manager.register(plugin)
        if record.status == "failed":
            raise HarnessConfigurationError(f"plugins[{index}] ({record.name}) could not be registered: {record.error}")
        if record.status == "disabled":
            raise HarnessConfigurationError(
                f"plugins[{index}] is named {record.name!r}, which HARNESS_DISABLE_PLUGINS blocks"
            )
    manager.raise_for_failed_guards()  # a failed policy plugin: fail closed
    return manager


def make_adapter(manager: HarnessPluginManager, harness: object, options: Mapping[str, Any] | None) -> Adapter:
    """The adapter for ``harness`` (an id, built by its factory with ``options``, or an instance)."""
    if isinstance(harness, str):
        factory = manager.hooks.adapter_factory(harness)
        try:
            adapter = factory(**dict(options or {}))
        except TypeError as exc:
            # Name the keys only: values may be secrets (api_key=...).
            keys = ", ".join(sorted(map(str, options or {}))) or "none"
            raise HarnessConfigurationError(
                f"harness {harness!r}: its adapter factory rejected harness_options (keys: {keys}): {exc}"
            ) from None
        if not isinstance(adapter, Adapter):
            raise HarnessConfigurationError(
                f"harness {harness!r}: the adapter factory returned {type(adapter).__name__}, which does not "
                "implement the Adapter protocol (harness_id, supports_builtin_approvals, "
                "supports_builtin_filtering, start)"
            )
        if adapter.harness_id != harness:
            raise HarnessConfigurationError(
                f"harness {harness!r}: the adapter factory returned an adapter for harness {adapter.harness_id!r}"
            )
    elif isinstance(harness, Adapter):
        if options:
            raise HarnessConfigurationError("harness_options only applies when harness is a harness id")
        adapter = harness
    else:
        raise HarnessConfigurationError(
            f"harness must be a harness id such as 'builtin' or an Adapter instance, got {type(harness).__name__}"
        )
    if not isinstance(adapter.harness_id, str) or _HARNESS_ID.fullmatch(adapter.harness_id) is None:
        raise HarnessConfigurationError(f"adapter harness_id must be kebab-case, got {adapter.harness_id!r}")
    return adapter

def merge_tools(manager: HarnessPluginManager, builtins: Mapping[str, BuiltinTool], harness_id: str,
                explicit: list[HarnessTool], include_plugin_tools: bool) -> dict[str, HarnessTool]:
    """Explicit tools plus tool-pack tools; a name given twice or named like a built-in is refused."""
    merged: dict[str, HarnessTool] = {}
    source: dict[str, str] = {}
    for tool in explicit:
        if tool.name in merged:
            raise ToolNameConflictError(f"tools= lists two tools named {tool.name!r}")
        merged[tool.name] = tool
        source[tool.name] = "the tools= argument"
    if include_plugin_tools:
        for name, (plugin, tool) in manager.hooks.tools().items():
            if name in merged:
                raise ToolNameConflictError(
                    f"tool {name!r} is given in {source[name]} and contributed by plugin {plugin!r}; rename one, "
                    "or pass include_plugin_tools=False"
                )
            merged[name] = tool
            source[name] = f"plugin {plugin!r}"
    for name in merged:
        if name in builtins:
            summary = builtins[name].description.split(". ")[0].strip().rstrip(".")
            raise ToolNameConflictError(
                f"host tool {name!r} (from {source[name]}) has the name of a built-in tool of harness "
                f"{harness_id!r}{f' ({summary})' if summary else ''}; rename the host tool (a built-in's name "
                "stays reserved while the built-in is inactive or not offered)"
            )
    return merged


def check_tool_approval(settings: Mapping[str, ToolApprovalSetting] | None, builtins: Mapping[str, BuiltinTool],
                    host_tools: Mapping[str, HarnessTool], harness_id: str) -> dict[str, ToolApprovalSetting]:
    """Check ``tool_approval``: host tool names only; statuses, ``{"type", "reason"}`` mappings
    (normalised) or functions.

    Raises:
        HarnessConfigurationError: not a mapping, a built-in or unknown name, a bad value.
    """
    if settings is None:
        return {}
    if not isinstance(settings, Mapping):
        raise HarnessConfigurationError(
            f"tool_approval must map host tool names to approval statuses, got {type(settings).__name__}"
        )
    checked: dict[str, ToolApprovalSetting] = {}
    for name, setting in settings.items():
        if name in builtins:
            raise HarnessConfigurationError(
                f"tool_approval[{name!r}]: {name!r} is a built-in tool of harness {harness_id!r}; "
                "tool_approval applies to host tools, use permission_mode (or an approval policy plugin) for built-ins"
            )
        if name not in host_tools:
            raise HarnessConfigurationError(
                f"tool_approval[{name!r}]: no host tool is named {name!r} "
                f"(host tools: {', '.join(sorted(host_tools)) or 'none'})"
            )
        if not callable(setting):
            try:
                status, reason = parse_tool_approval(setting, where=f"tool_approval[{name!r}]")
                setting = {"type": status, "reason": reason} if reason is not None else status
            except ValueError as exc:
                raise HarnessConfigurationError(str(exc)) from None
        checked[name] = setting
    return checked
