"""The agent's configuration: construction checks, the merged tool set, introspection.

:class:`AgentConfig` holds everything decided when a
:class:`~harness_core.agent.harness_agent.HarnessAgent` is built (adapter, plugin manager,
tools, filters, approvals, context) and runs the checks that raise
:class:`~harness_core.errors.HarnessConfigurationError`. The agent holds one and delegates
its read-only properties to it; sessions and turns live in
:mod:`harness_core.agent.harness_agent`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pydantic

from harness_core.adapter import Adapter
from harness_core.agent.config_inputs import (
    check_tool_approval,
    make_adapter,
    make_manager,
    merge_tools,
    name_set,
    tool_list,
)
from harness_core.agent.continuation_store import ContinuationStore
from harness_core.agent.display import DisplayPaths
from harness_core.agent.prepare import PrepareCall
from harness_core.agent.state_signing import StateSigner
from harness_core.agent.tool_context import (
    OnToolExecutionEnd,
    context_is_optional,
    validate_context,
)
from harness_core.agent.tool_names import check_prefixed_names
from harness_core.approval import (
    ApprovalStatus,
    PermissionMode,
    ToolApprovalSetting,
)
from harness_core.errors import HarnessConfigurationError
from harness_core.hook_contexts import OnError
from harness_core.mcp import McpServerConfig, split_mcp_name
from harness_core.plugins.manager import DISABLE_ENV, HarnessPluginManager
from harness_core.plugins.policies import EnforcedSetting
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = ["AgentConfig"]

_HARNESS_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class AgentConfig:
    """Everything a :class:`~harness_core.agent.harness_agent.HarnessAgent` decided at
    construction, checked once and read-only afterwards (the agent holds one, by composition).

    Takes :class:`~harness_core.agent.harness_agent.HarnessAgent`'s keyword arguments, which
    document each setting.

    Raises:
        HarnessConfigurationError: an inconsistent configuration; the message names the
            option and the value: ``active_tools`` with ``inactive_tools``; a filtered name
            that is no tool; built-in filtering on an adapter with neither native filtering
            nor built-in approvals; a permission mode other than ``allow-all`` on an adapter
            without built-in approvals; a bad ``tool_approval`` status or a key that is no
            host tool; ``tools_context`` when no tool declares a context schema, missing
            when one requires it (and no ``prepare_call``), or not matching a schema; an
            unknown harness id; a plugin that failed to register; ``tool_approval``
            entries while the core ``tool-approval`` plugin is not loaded, or a permission
            mode other than ``allow-all`` while the core ``permission-mode`` plugin is not
            loaded (``HARNESS_DISABLE_PLUGINS`` blocks it, say): the setting could not be
            honoured, so the agent fails closed instead of running tools unasked.
        ToolNameConflictError: two tools with the same name (both sources named).
    """

    def __init__(
        self,
        *,
        harness: str | Adapter,
        harness_options: Mapping[str, Any] | None = None,
        tools: Mapping[str, HarnessTool] | Sequence[HarnessTool] | None = None,
        include_plugin_tools: bool = True,
        active_tools: Iterable[str] | None = None,
        inactive_tools: Iterable[str] | None = None,
        tool_approval: Mapping[str, ToolApprovalSetting] | None = None,
        permission_mode: PermissionMode | str = PermissionMode.ALLOW_ALL,
        tools_context: Mapping[str, Any] | None = None,
        prepare_call: PrepareCall | None = None,
        instructions: str | None = None,
        on_tool_execution_end: OnToolExecutionEnd | None = None,
        on_error: OnError = "return-to-model",
        tool_timeout: float | None = None,
        display_paths: DisplayPaths = "relative",
        plugins: Sequence[object] = (),
        plugin_manager: HarnessPluginManager | None = None,
        state_secret: str | bytes | None = None,
        continuation_store: ContinuationStore | None = None,
    ) -> None:
        self._state_signer = StateSigner(state_secret) if state_secret is not None else None
        if continuation_store is not None and not isinstance(continuation_store, ContinuationStore):
            raise HarnessConfigurationError(
                f"continuation_store must have a claim(key, session_id) method, got {type(continuation_store).__name__}")
        self._continuation_store = continuation_store
        self._manager = make_manager(plugins, plugin_manager)
        hooks = self._manager.hooks
        self._adapter = make_adapter(self._manager, harness, harness_options)
        self._harness_id = self._adapter.harness_id
        self._builtins: dict[str, BuiltinTool] = {tool.name: tool for tool in hooks.builtins(self._harness_id)}
        self._host_tools = merge_tools(self._manager, self._builtins, self._harness_id, tool_list(tools),
                                      include_plugin_tools)
        check_prefixed_names(self._adapter, self._harness_id, self._host_tools)
        try:
            self._permission_mode = PermissionMode.parse(permission_mode)
        except ValueError as exc:
            raise HarnessConfigurationError(str(exc)) from None
        for name, value in (("prepare_call", prepare_call), ("on_tool_execution_end", on_tool_execution_end)):
            if value is not None and not callable(value):
                raise HarnessConfigurationError(f"{name} must be callable, got {type(value).__name__}")
        if on_error not in ("return-to-model", "fail"):
            raise HarnessConfigurationError(f"on_error must be 'return-to-model' or 'fail', got {on_error!r}")
        if tool_timeout is not None and (
            isinstance(tool_timeout, bool) or not isinstance(tool_timeout, int | float) or not tool_timeout > 0
            or not math.isfinite(tool_timeout)
        ):
            raise HarnessConfigurationError(f"tool_timeout must be a positive number of seconds or None, got {tool_timeout!r}")
        if display_paths not in ("relative", "absolute"):
            raise HarnessConfigurationError(f"display_paths must be 'relative' or 'absolute', got {display_paths!r}")
        self._display_paths: DisplayPaths = display_paths
        if instructions is not None and not isinstance(instructions, str):
            raise HarnessConfigurationError(f"instructions must be a string, got {type(instructions).__name__}")
        self._prepare_call = prepare_call
        self._on_tool_execution_end = on_tool_execution_end
        self._on_error: OnError = on_error
        self._tool_timeout = float(tool_timeout) if tool_timeout is not None else None
        self._instructions = instructions
        self._active, self._inactive = self._check_filters(active_tools, inactive_tools)
        self._check_capabilities()
        self._tool_approval = check_tool_approval(tool_approval, self._builtins, self._host_tools, self._harness_id)
        self._check_policy_plugins()
        self._tools_context = self.check_tools_context(tools_context, where="tools_context", at_construction=True)

    def _check_filters(self, active: object, inactive: object) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        active_names = name_set(active, "active_tools")
        inactive_names = name_set(inactive, "inactive_tools")
        if active_names is not None and inactive_names is not None:
            raise HarnessConfigurationError("pass either active_tools or inactive_tools, not both")
        known = set(self._builtins) | set(self._host_tools)
        servers = self.mcp_servers
        for option, names in (("active_tools", active_names), ("inactive_tools", inactive_names)):
            unknown = sorted(n for n in (names or frozenset()) - known if not self._is_mcp_name(n))
            if unknown:
                mcp = ", ".join(f"mcp__{name}" for name in servers) or "none"
                raise HarnessConfigurationError(
                    f"{option} names {', '.join(map(repr, unknown))}, which {'is' if len(unknown) == 1 else 'are'} "
                    f"no tool of this agent (built-ins of {self._harness_id!r}: "
                    f"{', '.join(sorted(self._builtins)) or 'none'}; host tools: "
                    f"{', '.join(sorted(self._host_tools)) or 'none'}; MCP servers: {mcp})"
                )
        return active_names, inactive_names

    @property
    def mcp_servers(self) -> Mapping[str, McpServerConfig]:
        """The adapter's MCP servers (its optional ``mcp_servers`` attribute), by name."""
        servers = getattr(self._adapter, "mcp_servers", None)
        return MappingProxyType(dict(servers)) if isinstance(servers, Mapping) else MappingProxyType({})

    def _is_mcp_name(self, name: str) -> bool:
        parts = split_mcp_name(name)
        return parts is not None and parts[0] in self.mcp_servers

    def user_inactive(self) -> tuple[dict[str, str], dict[str, str]]:
        """``(host name -> reason, runtime-tool name -> reason)`` from active/inactive_tools.

        Runtime tools are the built-ins and the MCP tools the runtime calls itself; an MCP
        entry may be a server prefix ``mcp__<server>`` covering all of its tools.
        """
        host: dict[str, str] = {}
        builtin: dict[str, str] = {}
        if self._inactive is not None:
            for name in self._inactive:
                runtime = name in self._builtins or self._is_mcp_name(name)
                (builtin if runtime else host)[name] = "listed in inactive_tools"
        if self._active is not None:
            for name in self._host_tools:
                if name not in self._active:
                    host[name] = "not in active_tools"
            for name in self._builtins:
                if name not in self._active:
                    builtin[name] = "not in active_tools"
        return host, builtin

    def _check_capabilities(self) -> None:
        adapter = self._adapter
        _, builtin_inactive = self.user_inactive()
        if builtin_inactive and not (adapter.supports_builtin_filtering or adapter.supports_builtin_approvals):
            raise HarnessConfigurationError(
                f"harness {self._harness_id!r} can neither filter its built-in tools natively nor deny them through "
                f"built-in approvals, so built-ins {', '.join(sorted(builtin_inactive))} cannot be made inactive; "
                "filter host tools only"
            )
        if self._permission_mode is not PermissionMode.ALLOW_ALL and not adapter.supports_builtin_approvals:
            raise HarnessConfigurationError(
                f"permission_mode {self._permission_mode.value!r} needs built-in approvals, which harness "
                f"{self._harness_id!r} does not support; use permission_mode='allow-all'"
            )

    def _policy_missing(self, setting: EnforcedSetting, plugin: str) -> str | None:
        """Why no loaded policy enforces ``setting`` (by its ``@enforces`` declaration, never
        by name), or ``None`` if one does; ``plugin`` is the core default that would, for the
        message."""
        if self._manager.hooks.enforcers(setting):
            return None
        if plugin in self._manager.disabled_names:
            blocked = ",".join(sorted(self._manager.disabled_names))
            return f"is disabled by {DISABLE_ENV} (set to {blocked!r})"
        return "is not registered on this agent's plugin manager (created with register_core=False?)"

    def _check_policy_plugins(self) -> None:
        """Refuse settings whose enforcing core policy plugin is not loaded (fail closed).

        ``tool_approval`` is enforced by the core ``tool-approval`` plugin and a permission
        mode other than ``allow-all`` by the core ``permission-mode`` plugin. Without them
        the settings would be silently ignored and tools would run unasked, so the agent
        refuses to be built instead.
        """
        enforced = sorted(
            name for name, setting in self._tool_approval.items()
            if callable(setting) or setting is not ApprovalStatus.NOT_APPLICABLE
        )
        why = self._policy_missing("tool_approval", "tool-approval")
        if enforced and why is not None:
            raise HarnessConfigurationError(
                f"tool_approval is set for {', '.join(map(repr, enforced))}, but the core plugin 'tool-approval' that "
                f"enforces it {why}; the setting cannot be honoured. Re-enable the plugin (remove it from "
                "HARNESS_DISABLE_PLUGINS) or drop tool_approval"
            )
        why = self._policy_missing("permission_mode", "permission-mode")
        if self._permission_mode is not PermissionMode.ALLOW_ALL and why is not None:
            raise HarnessConfigurationError(
                f"permission_mode {self._permission_mode.value!r} is set, but the core plugin 'permission-mode' that "
                f"enforces it {why}; built-in calls would run without asking. Re-enable the plugin (remove it from "
                "HARNESS_DISABLE_PLUGINS) or use permission_mode='allow-all'"
            )

    def context_tools(self) -> dict[str, HarnessTool]:
        return {name: tool for name, tool in self._host_tools.items() if tool.context_schema is not None}

    def check_tools_context(self, value: object, *, where: str, at_construction: bool) -> dict[str, Any] | None:
        context_tools = self.context_tools()
        if value is None:
            if at_construction and self._prepare_call is None:
                missing = sorted(
                    name for name, tool in context_tools.items()
                    if tool.context_schema is not None and not context_is_optional(tool.context_schema)
                )
                if missing:
                    raise HarnessConfigurationError(
                        f"tools_context is required: tool(s) {', '.join(map(repr, missing))} declare a context_schema "
                        f"with required fields; pass tools_context={{{missing[0]!r}: {{...}}}} or prepare_call="
                    )
            return None
        if not context_tools:
            raise HarnessConfigurationError(
                f"{where} was given, but no host tool declares a context_schema, so no tool takes a context"
            )
        if not isinstance(value, Mapping):
            raise HarnessConfigurationError(f"{where} must map tool names to contexts, got {type(value).__name__}")
        for key in value:
            if key not in context_tools:
                raise HarnessConfigurationError(
                    f"{where}[{key!r}]: no host tool named {key!r} declares a context_schema "
                    f"(tools taking a context: {', '.join(sorted(context_tools))})"
                )
        for name, tool in context_tools.items():
            try:
                validate_context(tool, value)
            except LookupError:
                if self._prepare_call is None:
                    raise HarnessConfigurationError(
                        f"{where} has no entry for tool {name!r}, whose context_schema requires one"
                    ) from None
            except pydantic.ValidationError as exc:
                raise HarnessConfigurationError(
                    f"{where}[{name!r}] does not match the context_schema of tool {name!r}: "
                    f"{exc.error_count()} problem(s): "
                    + "; ".join(f"{'.'.join(map(str, e['loc'])) or '$'}: {e['msg']}" for e in exc.errors(include_url=False))
                ) from None
        return dict(value)

    # -- introspection ---------------------------------------------------------------

    @property
    def prepare_call(self) -> PrepareCall | None:
        """The ``prepare_call`` hook, or ``None``."""
        return self._prepare_call

    @property
    def on_tool_execution_end(self) -> OnToolExecutionEnd | None:
        """The ``on_tool_execution_end`` callback, or ``None``."""
        return self._on_tool_execution_end

    @property
    def continuation_store(self) -> ContinuationStore | None:
        """The store that makes each suspended state continuable once, or ``None``."""
        return self._continuation_store

    @property
    def state_signer(self) -> StateSigner | None:
        """Signs and verifies continuation state (from ``state_secret``), or ``None``."""
        return self._state_signer

    @property
    def on_error(self) -> OnError:
        """The host-tool error policy."""
        return self._on_error

    @property
    def display_paths(self) -> DisplayPaths:
        """``relative`` (workspace prefix stripped in parts) or ``absolute``."""
        return self._display_paths

    @property
    def tool_timeout(self) -> float | None:
        """Seconds before a host tool call becomes an error result, or ``None``."""
        return self._tool_timeout

    @property
    def harness_id(self) -> str:
        """The adapter's harness id."""
        return self._harness_id

    @property
    def adapter(self) -> Adapter:
        """The adapter instance."""
        return self._adapter

    @property
    def plugin_manager(self) -> HarnessPluginManager:
        """The plugin manager whose hooks this agent calls."""
        return self._manager

    @property
    def tools(self) -> Mapping[str, HarnessTool | BuiltinTool]:
        """The merged tool set, read-only: built-ins by common name (natives without one by
        native name) and host tools by name."""
        merged: dict[str, HarnessTool | BuiltinTool] = {**self._builtins, **self._host_tools}
        return MappingProxyType(merged)

    @property
    def builtins(self) -> Mapping[str, BuiltinTool]:
        """The runtime's built-in tools by harness-facing name (read-only)."""
        return MappingProxyType(self._builtins)

    @property
    def host_tools(self) -> Mapping[str, HarnessTool]:
        """Host tools by name, tool-pack tools included (read-only)."""
        return MappingProxyType(self._host_tools)

    @property
    def permission_mode(self) -> PermissionMode:
        """The permission mode for built-ins."""
        return self._permission_mode

    @property
    def instructions(self) -> str | None:
        """Text appended to the runtime's system prompt."""
        return self._instructions

    @property
    def tools_context(self) -> Mapping[str, Any] | None:
        """The agent-level tools context map, or ``None``."""
        return MappingProxyType(self._tools_context) if self._tools_context is not None else None

    @property
    def active_tools(self) -> frozenset[str] | None:
        """The ``active_tools`` allowlist, or ``None``."""
        return self._active

    @property
    def inactive_tools(self) -> frozenset[str] | None:
        """The ``inactive_tools`` denylist, or ``None``."""
        return self._inactive

    @property
    def tool_approval(self) -> Mapping[str, ToolApprovalSetting]:
        """The ``tool_approval`` settings (read-only)."""
        return MappingProxyType(self._tool_approval)

    def __repr__(self) -> str:
        return (f"<HarnessAgent harness={self._harness_id!r} tools={sorted(self.tools)} "
                f"permission_mode={self._permission_mode.value}>")
