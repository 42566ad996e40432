"""The read-only configuration properties of :class:`~harness_core.agent.harness_agent.HarnessAgent`.

:class:`AgentConfigView` delegates each property to the agent's
:class:`~harness_core.agent.config.AgentConfig` (``self.config``), so the agent module holds
only behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core.adapter import Adapter
from harness_core.agent.config import AgentConfig
from harness_core.approval import PermissionMode, ToolApprovalSetting
from harness_core.plugins.manager import HarnessPluginManager
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = ["AgentConfigView"]


class AgentConfigView:
    """Read-only properties over ``self.config`` (mixed into ``HarnessAgent``)."""

    config: AgentConfig

    @property
    def harness_id(self) -> str:
        """The adapter's harness id."""
        return self.config.harness_id

    @property
    def adapter(self) -> Adapter:
        """The adapter instance."""
        return self.config.adapter

    @property
    def plugin_manager(self) -> HarnessPluginManager:
        """The plugin manager whose hooks this agent calls."""
        return self.config.plugin_manager

    @property
    def tools(self) -> Mapping[str, HarnessTool | BuiltinTool]:
        """The merged tool set, read-only: built-ins by common (else native) name, host tools by name."""
        return self.config.tools

    @property
    def builtins(self) -> Mapping[str, BuiltinTool]:
        """The runtime's built-in tools by harness-facing name (read-only)."""
        return self.config.builtins

    @property
    def host_tools(self) -> Mapping[str, HarnessTool]:
        """Host tools by name, tool-pack tools included (read-only)."""
        return self.config.host_tools

    @property
    def permission_mode(self) -> PermissionMode:
        """The permission mode for built-ins."""
        return self.config.permission_mode

    @property
    def instructions(self) -> str | None:
        """Text appended to the runtime's system prompt."""
        return self.config.instructions

    @property
    def tools_context(self) -> Mapping[str, Any] | None:
        """The agent-level tools context map, or ``None``."""
        return self.config.tools_context

    @property
    def active_tools(self) -> frozenset[str] | None:
        """The ``active_tools`` allowlist, or ``None``."""
        return self.config.active_tools

    @property
    def inactive_tools(self) -> frozenset[str] | None:
        """The ``inactive_tools`` denylist, or ``None``."""
        return self.config.inactive_tools

    @property
    def tool_approval(self) -> Mapping[str, ToolApprovalSetting]:
        """The ``tool_approval`` settings (read-only)."""
        return self.config.tool_approval
