"""harness-core: program coding-agent harnesses through one pluggable API.

The public API is re-exported here; submodules hold one concept each (start with :mod:`harness_core.hookspecs`).

Names are imported on first use (PEP 562 ``__getattr__``): ``import harness_core`` loads no
submodule, and ``from harness_core import X`` imports only the submodule defining ``X`` (and
what it needs). Type checkers and IDEs see every name through the ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core.lazy import lazy_exports

if TYPE_CHECKING:
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
        PendingRequest,
        PendingRequestsTurn,
        PromptRequest,
        StartRequest,
        TurnEnd,
    )
    from harness_core.agent.answers import ApprovalResponse, ToolResultContinuation
    from harness_core.agent.continuation_store import (
        ContinuationReplayError,
        ContinuationStore,
        SqliteContinuationStore,
    )
    from harness_core.agent.features import AgentMode
    from harness_core.agent.harness_agent import HarnessAgent, PrepareCallOptions, ToolExecutionEnd
    from harness_core.agent.output import Output, OutputValidationError, StructuredOutput
    from harness_core.agent.results import GenerateResult, StepResult, StreamResult
    from harness_core.agent.session import HarnessSession
    from harness_core.agent.state import STATE_VERSION
    from harness_core.agent.stop import StopCondition, StopContext, has_tool_call, step_count_is
    from harness_core.agent.turn_state import TurnState
    from harness_core.approval import (
        ApprovalContext,
        ApprovalDecision,
        ApprovalStatus,
        PermissionMode,
        merge_decisions,
        mode_allows,
    )
    from harness_core.capabilities import (
        Capability,
        CapabilitySupport,
        HarnessCapabilities,
        capabilities_of,
        supported,
        unsupported,
    )
    from harness_core.errors import (
        HarnessCapabilityUnsupportedError,
        HarnessConfigurationError,
        HarnessError,
        PluginLoadError,
        StateIntegrityError,
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
    from harness_core.hook_contexts import BuiltinExecutionContext as BuiltinExecutionContext
    from harness_core.hook_contexts import ExecutionContext, FilterRequest, ProjectionContext
    from harness_core.hookspecs import hookimpl, hookspec
    from harness_core.mcp import (
        MCP_PREFIX,
        McpHttpServer,
        McpServerConfig,
        McpStdioServer,
        mcp_name_matches,
        mcp_tool_name,
        parse_mcp_servers,
        split_mcp_name,
    )
    from harness_core.output_prompt import output_instruction, with_output_instruction
    from harness_core.parts.models import (
        COMPACTION_TOOL,
        FILE_CHANGE_TOOL,
        AbortPart,
        ErrorPart,
        FinishPart,
        FinishReason,
        FinishStepPart,
        Part,
        RawPart,
        ReasoningDeltaPart,
        ReasoningEndPart,
        ReasoningStartPart,
        StartPart,
        StartStepPart,
        StreamPart,
        TextDeltaPart,
        TextEndPart,
        TextStartPart,
        ToolApprovalRequestPart,
        ToolApprovalResponsePart,
        ToolCallPart,
        ToolErrorPart,
        ToolInputDeltaPart,
        ToolInputEndPart,
        ToolInputStartPart,
        ToolOutputDeniedPart,
        ToolResultPart,
        Usage,
        parse_part,
        with_native_tool_name,
    )
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
    from harness_core.sandbox import (
        CommandResult,
        ConfinedLaunch,
        LocalSandbox,
        RuntimeConfinement,
        Sandbox,
        SandboxProcess,
        SandboxView,
        SpawnedProcess,
        install_paths,
        path_in_workspace,
        paths_outside,
        python_paths,
        require_path_sandbox,
        resolve_like_os,
        runtime_confinement,
    )
    from harness_core.skills import Skill, SkillFile, install_skills
    from harness_core.steering import SteerableTurn
    from harness_core.step_boundaries import StepBoundaries
    from harness_core.suggestions import describe_unknown_names
    from harness_core.telemetry import Telemetry
    from harness_core.tools.definition import (
        BuiltinTool,
        HarnessTool,
        ToolCall,
        ToolContext,
        ToolKind,
        ToolResources,
        define_harness_tool,
    )
    from harness_core.tools.output import (
        MAX_OUTPUT_CHARS,
        ToolOutput,
        normalize_output,
        sanitize_text,
    )
    from harness_core.tools.schema_check import schema_checker
    from harness_core.turn_capabilities import EachAnswerTurn

_EXPORTS: dict[str, tuple[str, ...]] = {
    "harness_core.lazy": ("lazy_exports",),
    "harness_core.adapter": ("Adapter", "AdapterFactory", "AdapterSession", "AdapterTurn",
        "AwaitingAnswers", "BuiltinApprovalRequest", "BuiltinFilter", "BuiltinFilterMode",
        "HostToolCall", "HostToolSpec", "PendingRequest", "PendingRequestsTurn", "PromptRequest",
        "StartRequest", "TurnEnd"),
    "harness_core.agent.answers": ("ApprovalResponse", "ToolResultContinuation"),
    "harness_core.agent.continuation_store": ("ContinuationReplayError", "ContinuationStore",
        "SqliteContinuationStore"),
    "harness_core.agent.features": ("AgentMode",),
    "harness_core.agent.harness_agent": ("HarnessAgent", "PrepareCallOptions", "ToolExecutionEnd"),
    "harness_core.agent.output": ("Output", "OutputValidationError", "StructuredOutput"),
    "harness_core.agent.results": ("GenerateResult", "StepResult", "StreamResult"),
    "harness_core.agent.session": ("HarnessSession",),
    "harness_core.agent.state": ("STATE_VERSION",),
    "harness_core.agent.stop": ("StopCondition", "StopContext", "has_tool_call", "step_count_is"),
    "harness_core.agent.turn_state": ("TurnState",),
    "harness_core.approval": ("ApprovalContext", "ApprovalDecision", "ApprovalStatus",
        "PermissionMode", "merge_decisions", "mode_allows"),
    "harness_core.capabilities": ("Capability", "CapabilitySupport", "HarnessCapabilities",
        "capabilities_of", "supported", "unsupported"),
    "harness_core.errors": ("HarnessCapabilityUnsupportedError", "HarnessConfigurationError",
        "HarnessError", "PluginLoadError", "StateIntegrityError", "ToolDefinitionError",
        "ToolInputError", "ToolNameConflictError", "TurnStateError"),
    "harness_core.execution": ("CallScheduler", "ToolExecutionError", "ToolTimeout",
        "execute_call", "invoke_tool", "run_tool", "settle_error", "within_timeout"),
    "harness_core.hook_contexts": ("BuiltinExecutionContext", "ExecutionContext", "FilterRequest", "ProjectionContext"),
    "harness_core.hookspecs": ("hookimpl", "hookspec"),
    "harness_core.mcp": ("MCP_PREFIX", "McpHttpServer", "McpServerConfig", "McpStdioServer",
        "mcp_name_matches", "mcp_tool_name", "parse_mcp_servers", "split_mcp_name"),
    "harness_core.parts.models": ("COMPACTION_TOOL", "FILE_CHANGE_TOOL", "AbortPart", "ErrorPart",
        "FinishPart", "FinishReason", "FinishStepPart", "Part", "RawPart", "ReasoningDeltaPart",
        "ReasoningEndPart", "ReasoningStartPart", "StartPart", "StartStepPart", "StreamPart",
        "TextDeltaPart", "TextEndPart", "TextStartPart", "ToolApprovalRequestPart",
        "ToolApprovalResponsePart", "ToolCallPart", "ToolErrorPart", "ToolInputDeltaPart",
        "ToolInputEndPart", "ToolInputStartPart", "ToolOutputDeniedPart", "ToolResultPart",
        "Usage", "parse_part", "with_native_tool_name"),
    "harness_core.plugins.manager": ("HarnessPluginManager", "HookFacade", "PluginHookError",
        "PluginLoadWarning", "PluginRecord", "create_plugin_manager", "get_plugin_manager"),
    "harness_core.plugins.policies": ("enforces",),
    "harness_core.sandbox": ("CommandResult", "ConfinedLaunch", "LocalSandbox",
        "RuntimeConfinement", "Sandbox", "SandboxProcess", "SandboxView", "SpawnedProcess",
        "install_paths", "path_in_workspace", "paths_outside", "python_paths",
        "require_path_sandbox", "resolve_like_os", "runtime_confinement"),
    "harness_core.skills": ("Skill", "SkillFile", "install_skills"),
    "harness_core.output_prompt": ("output_instruction", "with_output_instruction"),
    "harness_core.steering": ("SteerableTurn",),
    "harness_core.step_boundaries": ("StepBoundaries",),
    "harness_core.telemetry": ("Telemetry",),
    "harness_core.suggestions": ("describe_unknown_names",),
    "harness_core.tools.definition": ("BuiltinTool", "HarnessTool", "ToolCall", "ToolContext",
        "ToolKind", "ToolResources", "define_harness_tool"),
    "harness_core.tools.output": ("MAX_OUTPUT_CHARS", "ToolOutput", "normalize_output",
        "sanitize_text"),
    "harness_core.tools.schema_check": ("schema_checker",),
    "harness_core.turn_capabilities": ("EachAnswerTurn",),
}
"""Submodule -> the public names it defines (imported on first use, PEP 562)."""

_LAZY: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [  # exactly the names of _EXPORTS (tests/core/test_startup_imports.py checks)
    "AbortPart", "Adapter", "AdapterFactory", "AdapterSession", "AdapterTurn", "AgentMode",
    "ApprovalContext", "ApprovalDecision", "ApprovalResponse", "ApprovalStatus", "AwaitingAnswers",
    "BuiltinApprovalRequest", "BuiltinExecutionContext", "BuiltinFilter", "BuiltinFilterMode",
    "BuiltinTool",
    "COMPACTION_TOOL", "CallScheduler", "Capability", "CapabilitySupport", "CommandResult",
    "ConfinedLaunch", "ContinuationReplayError", "ContinuationStore", "EachAnswerTurn", "ErrorPart",
    "ExecutionContext", "FILE_CHANGE_TOOL", "FilterRequest", "FinishPart", "FinishReason",
    "FinishStepPart", "GenerateResult", "HarnessAgent", "HarnessCapabilities",
    "HarnessCapabilityUnsupportedError", "HarnessConfigurationError", "HarnessError",
    "HarnessPluginManager", "HarnessSession", "HarnessTool", "HookFacade", "HostToolCall",
    "HostToolSpec", "LocalSandbox", "MAX_OUTPUT_CHARS", "MCP_PREFIX", "McpHttpServer",
    "McpServerConfig", "McpStdioServer", "Output", "OutputValidationError", "Part",
    "PendingRequest", "PendingRequestsTurn", "PermissionMode", "PluginHookError", "PluginLoadError",
    "PluginLoadWarning", "PluginRecord", "PrepareCallOptions", "ProjectionContext", "PromptRequest",
    "RawPart", "ReasoningDeltaPart", "ReasoningEndPart", "ReasoningStartPart", "STATE_VERSION",
    "RuntimeConfinement", "Sandbox", "SandboxProcess", "SpawnedProcess", "SandboxView",
    "SqliteContinuationStore", "StartPart", "Skill", "SkillFile", "StartRequest", "StartStepPart",
    "StateIntegrityError", "SteerableTurn", "StepBoundaries", "Telemetry", "StepResult",
    "StopCondition", "StopContext", "StreamPart", "StreamResult", "StructuredOutput",
    "TextDeltaPart", "TextEndPart", "TextStartPart", "ToolApprovalRequestPart",
    "ToolApprovalResponsePart", "ToolCall", "ToolCallPart", "ToolContext", "ToolDefinitionError",
    "ToolErrorPart", "ToolExecutionEnd", "ToolExecutionError", "ToolInputDeltaPart",
    "ToolInputEndPart", "ToolInputError", "ToolInputStartPart", "ToolKind", "ToolNameConflictError",
    "ToolOutput", "ToolOutputDeniedPart", "ToolResources", "ToolResultContinuation",
    "ToolResultPart", "ToolTimeout", "TurnEnd", "TurnState", "TurnStateError", "Usage",
    "capabilities_of", "create_plugin_manager", "define_harness_tool", "describe_unknown_names",
    "enforces", "execute_call", "get_plugin_manager", "has_tool_call", "hookimpl", "install_skills",
    "hookspec", "invoke_tool", "lazy_exports", "mcp_name_matches", "mcp_tool_name", "merge_decisions",
    "mode_allows", "normalize_output", "output_instruction", "parse_mcp_servers", "parse_part",
    "path_in_workspace", "paths_outside", "require_path_sandbox", "resolve_like_os", "run_tool",
    "runtime_confinement", "install_paths", "python_paths", "sanitize_text", "schema_checker",
    "settle_error", "split_mcp_name", "step_count_is", "supported", "unsupported",
    "with_native_tool_name", "with_output_instruction", "within_timeout",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
