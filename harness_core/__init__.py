"""harness-core: program coding-agent harnesses through one pluggable API.

The public API is re-exported here; submodules hold one concept each (start with
:mod:`harness_core.hookspecs`).
"""

from harness_core.adapter import (
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
from harness_core.agent.answers import ApprovalResponse, ToolResultContinuation, TurnState
from harness_core.agent.harness_agent import HarnessAgent, PrepareCallOptions, ToolExecutionEnd
from harness_core.agent.results import GenerateResult, StepResult, StreamResult
from harness_core.agent.session import HarnessSession
from harness_core.agent.state import STATE_VERSION
from harness_core.approval import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    PermissionMode,
    merge_decisions,
    mode_allows,
)
from harness_core.errors import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    HarnessError,
    PluginLoadError,
    ToolDefinitionError,
    ToolInputError,
    ToolNameConflictError,
    TurnStateError,
)
from harness_core.execution import (
    CallScheduler,
    ToolExecutionError,
    ToolTimeout,
    execute_call,
    invoke_tool,
    run_tool,
    settle_error,
    within_timeout,
)
from harness_core.hook_contexts import ExecutionContext, FilterRequest, ProjectionContext
from harness_core.hookspecs import hookimpl, hookspec
from harness_core.plugins.manager import (
    HarnessPluginManager,
    HookFacade,
    PluginHookError,
    PluginLoadWarning,
    PluginRecord,
    create_plugin_manager,
    get_plugin_manager,
)
from harness_core.plugins.policies import enforces
from harness_core.sandbox import CommandResult, LocalSandbox, Sandbox, SandboxView
from harness_core.tools.definition import (
    BuiltinTool,
    HarnessTool,
    ToolCall,
    ToolContext,
    ToolKind,
    ToolResources,
    define_harness_tool,
)
from harness_core.tools.output import MAX_OUTPUT_CHARS, ToolOutput, normalize_output

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
    "CallScheduler",
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
    "PluginHookError",
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
    "ToolTimeout",
    "TurnEnd",
    "TurnState",
    "TurnStateError",
    "create_plugin_manager",
    "define_harness_tool",
    "enforces",
    "execute_call",
    "get_plugin_manager",
    "hookimpl",
    "hookspec",
    "invoke_tool",
    "merge_decisions",
    "mode_allows",
    "normalize_output",
    "run_tool",
    "settle_error",
    "within_timeout",
]
