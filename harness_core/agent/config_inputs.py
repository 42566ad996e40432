"""Checks of the raw ``HarnessAgent`` arguments that need no other configuration."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from harness_core.errors import HarnessConfigurationError
from harness_core.plugins.manager import (
    HarnessPluginManager,
    create_plugin_manager,
    get_plugin_manager,
)
from harness_core.tools.definition import HarnessTool

__all__ = ["make_manager", "name_set", "tool_list"]


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
    for plugin in plugins:
        record = manager.register(plugin)
        if record.status == "failed":
            raise HarnessConfigurationError(f"plugins: {plugin!r} could not be registered: {record.error}")
        if record.status == "disabled":
            raise HarnessConfigurationError(
                f"plugins: {plugin!r} is named {record.name!r}, which HARNESS_DISABLE_PLUGINS blocks"
            )
    manager.raise_for_failed_guards()  # a failed policy plugin: fail closed
    return manager
