"""harness-core: program coding-agent harnesses through one pluggable API.

The public API is re-exported here; submodules hold one concept each (start with
:mod:`harness_core.hookspecs`).
"""

from .adapter import (
    Adapter,
    AdapterFactory,
    AdapterSession,
    AdapterTurn,
    AwaitingAnswers,
    BuiltinApprovalRequest,
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolCall,
    HostToolSpec,
    PromptRequest,
    StartRequest,
    TurnEnd,
)
from .agent import HarnessAgent, PrepareCallOptions, ToolExecutionEnd
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
    PluginLoadWarning,
    PluginRecord,
    create_plugin_manager,
    get_plugin_manager,
)
from .result import GenerateResult, StepResult, StreamResult
from .sandbox import CommandResult, LocalSandbox, Sandbox, SandboxView
from .session import HarnessSession
from .state import STATE_VERSION
from .tools import (
    BuiltinTool,
    HarnessTool,
    ToolCall,
    ToolContext,
    ToolKind,
    ToolResources,
    define_harness_tool,
)
from .turn import ApprovalResponse, ToolResultContinuation, TurnState

__all__ = [
    "MAX_OUTPUT_CHARS",
    "STATE_VERSION",
    "Adapter",
    "AdapterFactory",
    "AdapterSession",
    "AdapterTurn",
    "ApprovalContext",
    "ApprovalDecision",
    "ApprovalResponse",
    "ApprovalStatus",
    "AwaitingAnswers",
    "BuiltinApprovalRequest",
    "BuiltinFilter",
    "BuiltinFilterMode",
    "BuiltinTool",
    "CommandResult",
    "ExecutionContext",
    "FilterRequest",
    "GenerateResult",
    "HarnessAgent",
    "HarnessCapabilityUnsupportedError",
    "HarnessConfigurationError",
    "HarnessError",
    "HarnessPluginManager",
    "HarnessSession",
    "HarnessTool",
    "HookFacade",
    "HostToolCall",
    "HostToolSpec",
    "LocalSandbox",
    "PermissionMode",
    "PluginLoadError",
    "PluginLoadWarning",
    "PluginRecord",
    "PrepareCallOptions",
    "ProjectionContext",
    "PromptRequest",
    "Sandbox",
    "SandboxView",
    "StartRequest",
    "StepResult",
    "StreamResult",
    "ToolCall",
    "ToolContext",
    "ToolDefinitionError",
    "ToolExecutionEnd",
    "ToolExecutionError",
    "ToolInputError",
    "ToolKind",
    "ToolNameConflictError",
    "ToolOutput",
    "ToolResources",
    "ToolResultContinuation",
    "TurnEnd",
    "TurnState",
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
