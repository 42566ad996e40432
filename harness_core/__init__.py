"""harness-core: program coding-agent harnesses through one pluggable API.

The public API is re-exported here; submodules hold one concept each (start with
:mod:`harness_core.hookspecs`).
"""

from .adapter import (
    Adapter,
    AdapterFactory,
    AdapterSession,
    AdapterTurn,
    BuiltinApprovalRequest,
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolCall,
    HostToolSpec,
    PromptRequest,
    StartRequest,
    TurnEnd,
)
from .approval import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    PermissionMode,
    merge_decisions,
    mode_allows,
)
from .contexts import ExecutionContext, FilterRequest, ProjectionContext
from .errors import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    HarnessError,
    PluginLoadError,
    ToolDefinitionError,
    ToolInputError,
    ToolNameConflictError,
    TurnStateError,
)
from .execution import ToolExecutionError, run_tool
from .hookspecs import hookimpl, hookspec
from .output import MAX_OUTPUT_CHARS, ToolOutput, normalize_output
from .plugins import (
    HarnessPluginManager,
    HookFacade,
    PluginRecord,
    create_plugin_manager,
    get_plugin_manager,
)
from .sandbox import CommandResult, Sandbox, SandboxView
from .tools import (
    BuiltinTool,
    HarnessTool,
    ToolCall,
    ToolContext,
    ToolKind,
    ToolResources,
    define_harness_tool,
)

__all__ = [
    "MAX_OUTPUT_CHARS",
    "Adapter",
    "AdapterFactory",
    "AdapterSession",
    "AdapterTurn",
    "ApprovalContext",
    "ApprovalDecision",
    "ApprovalStatus",
    "BuiltinApprovalRequest",
    "BuiltinFilter",
    "BuiltinFilterMode",
    "BuiltinTool",
    "CommandResult",
    "ExecutionContext",
    "FilterRequest",
    "HarnessCapabilityUnsupportedError",
    "HarnessConfigurationError",
    "HarnessError",
    "HarnessPluginManager",
    "HarnessTool",
    "HookFacade",
    "HostToolCall",
    "HostToolSpec",
    "PermissionMode",
    "PluginLoadError",
    "PluginRecord",
    "ProjectionContext",
    "PromptRequest",
    "Sandbox",
    "SandboxView",
    "StartRequest",
    "ToolCall",
    "ToolContext",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolInputError",
    "ToolKind",
    "ToolNameConflictError",
    "ToolOutput",
    "ToolResources",
    "TurnEnd",
    "TurnStateError",
    "create_plugin_manager",
    "define_harness_tool",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "merge_decisions",
    "mode_allows",
    "normalize_output",
    "run_tool",
]
