"""Scripted model servers and fixtures for testing harnesses offline.

A :class:`ScriptedModelServer` is a real HTTP server on 127.0.0.1 that speaks
Anthropic Messages, OpenAI Chat Completions and OpenAI Responses (streaming and
not) and answers from a :class:`Script`. Point a runtime (or an SDK) at
``server.base_url`` (Anthropic) or ``server.openai_base_url`` (OpenAI), then
assert on what it sent. The pytest plugin (``harness_core.testing.pytest_plugin``,
registered as a ``pytest11`` entry point) adds the ``scripted_model_server`` and
``isolated_home`` fixtures and the ``requires_runtime`` marker. See
``docs/testing.md``.

Names are imported on first use (PEP 562 ``__getattr__``), so importing this package (the
``harness`` command does, for ``harness model-server``) costs nothing until a name is used:
the servers, YAML scripts and pytest helpers load only when needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core.lazy import lazy_exports

if TYPE_CHECKING:
    from harness_core.testing._errors import ScriptError, ToolNotOfferedError
    from harness_core.testing._faults import Fault
    from harness_core.testing._fixtures import anyio_backend
    from harness_core.testing._loader import load_script, parse_script_text
    from harness_core.testing._recording import SECRET_HEADERS, RecordedRequest, RequestKind
    from harness_core.testing._request import (
        ImageView,
        Message,
        ModelRequest,
        OfferedTool,
        ToolCallView,
        ToolResultView,
        WireFormat,
    )
    from harness_core.testing._responder import TurnSource, choose_turn
    from harness_core.testing._runtimes import (
        KNOWN_RUNTIMES,
        IsolatedHome,
        make_isolated_home,
        missing_runtime_reason,
        runtime_required,
        skip_unless_runtime,
    )
    from harness_core.testing._scenario_script import (
        ScenarioFailure,
        find_prompt_position,
        received_tool_results,
        scenario_script,
    )
    from harness_core.testing._script import ModelTurn, Responder, Script, ToolCallSpec, Usage
    from harness_core.testing._server import ScriptedModelServer, ScriptLike, coerce_script
    from harness_core.testing._tools import (
        COMMON_TOOL_NAMES,
        adapt_arguments,
        is_common_tool_name,
        resolve_tool_name,
    )
    from harness_core.testing.mcp_servers import PNG_1X1, HttpMcpServer, stdio_server_config
    from harness_core.testing.plugin_isolation import IsolatedPlugins, isolated_plugin_manager
    from harness_core.testing.scripted_adapter import (
        CallBuiltin,
        CallHost,
        ChangeFile,
        Compact,
        Crash,
        EchoResults,
        Fail,
        Say,
        ScriptedAdapter,
        ScriptedResult,
        Sleep,
        StepContext,
        Think,
    )

_LAZY: dict[str, str] = {
    "HttpMcpServer": "harness_core.testing.mcp_servers",
    "PNG_1X1": "harness_core.testing.mcp_servers",
    "stdio_server_config": "harness_core.testing.mcp_servers",
    "COMMON_TOOL_NAMES": "harness_core.testing._tools",
    "CallBuiltin": "harness_core.testing.scripted_adapter",
    "CallHost": "harness_core.testing.scripted_adapter",
    "ChangeFile": "harness_core.testing.scripted_adapter",
    "Compact": "harness_core.testing.scripted_adapter",
    "Crash": "harness_core.testing.scripted_adapter",
    "EchoResults": "harness_core.testing.scripted_adapter",
    "Fail": "harness_core.testing.scripted_adapter",
    "Fault": "harness_core.testing._faults",
    "IsolatedHome": "harness_core.testing._runtimes",
    "IsolatedPlugins": "harness_core.testing.plugin_isolation",
    "KNOWN_RUNTIMES": "harness_core.testing._runtimes",
    "Message": "harness_core.testing._request",
    "ModelRequest": "harness_core.testing._request",
    "ModelTurn": "harness_core.testing._script",
    "OfferedTool": "harness_core.testing._request",
    "RecordedRequest": "harness_core.testing._recording",
    "RequestKind": "harness_core.testing._recording",
    "Responder": "harness_core.testing._script",
    "SECRET_HEADERS": "harness_core.testing._recording",
    "Say": "harness_core.testing.scripted_adapter",
    "ScenarioFailure": "harness_core.testing._scenario_script",
    "Script": "harness_core.testing._script",
    "ScriptError": "harness_core.testing._errors",
    "ScriptLike": "harness_core.testing._server",
    "ScriptedAdapter": "harness_core.testing.scripted_adapter",
    "ScriptedModelServer": "harness_core.testing._server",
    "ScriptedResult": "harness_core.testing.scripted_adapter",
    "Sleep": "harness_core.testing.scripted_adapter",
    "StepContext": "harness_core.testing.scripted_adapter",
    "Think": "harness_core.testing.scripted_adapter",
    "ToolCallSpec": "harness_core.testing._script",
    "ToolCallView": "harness_core.testing._request",
    "ToolNotOfferedError": "harness_core.testing._errors",
    "ToolResultView": "harness_core.testing._request",
    "ImageView": "harness_core.testing._request",
    "TurnSource": "harness_core.testing._responder",
    "Usage": "harness_core.testing._script",
    "WireFormat": "harness_core.testing._request",
    "adapt_arguments": "harness_core.testing._tools",
    "choose_turn": "harness_core.testing._responder",
    "coerce_script": "harness_core.testing._server",
    "find_prompt_position": "harness_core.testing._scenario_script",
    "is_common_tool_name": "harness_core.testing._tools",
    "isolated_plugin_manager": "harness_core.testing.plugin_isolation",
    "load_script": "harness_core.testing._loader",
    "make_isolated_home": "harness_core.testing._runtimes",
    "missing_runtime_reason": "harness_core.testing._runtimes",
    "runtime_required": "harness_core.testing._runtimes",
    "anyio_backend": "harness_core.testing._fixtures",
    "parse_script_text": "harness_core.testing._loader",
    "received_tool_results": "harness_core.testing._scenario_script",
    "resolve_tool_name": "harness_core.testing._tools",
    "scenario_script": "harness_core.testing._scenario_script",
    "skip_unless_runtime": "harness_core.testing._runtimes",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "PNG_1X1",
    "HttpMcpServer",
    "stdio_server_config",
    "COMMON_TOOL_NAMES",
    "CallBuiltin",
    "CallHost",
    "ChangeFile",
    "Compact",
    "Crash",
    "EchoResults",
    "Fail",
    "Fault",
    "IsolatedHome",
    "IsolatedPlugins",
    "KNOWN_RUNTIMES",
    "runtime_required",
    "anyio_backend",
    "Message",
    "ModelRequest",
    "ModelTurn",
    "OfferedTool",
    "RecordedRequest",
    "RequestKind",
    "Responder",
    "SECRET_HEADERS",
    "Say",
    "ScenarioFailure",
    "Script",
    "ScriptError",
    "ScriptLike",
    "ScriptedAdapter",
    "ScriptedModelServer",
    "ScriptedResult",
    "Sleep",
    "StepContext",
    "Think",
    "ToolCallSpec",
    "ToolCallView",
    "ToolNotOfferedError",
    "ToolResultView",
    "ImageView",
    "TurnSource",
    "Usage",
    "WireFormat",
    "adapt_arguments",
    "choose_turn",
    "coerce_script",
    "find_prompt_position",
    "is_common_tool_name",
    "isolated_plugin_manager",
    "load_script",
    "make_isolated_home",
    "missing_runtime_reason",
    "parse_script_text",
    "received_tool_results",
    "resolve_tool_name",
    "scenario_script",
    "skip_unless_runtime",
]
