"""Scripted model servers and fixtures for testing harnesses offline.

A :class:`ScriptedModelServer` is a real HTTP server on 127.0.0.1 that speaks
Anthropic Messages, OpenAI Chat Completions and OpenAI Responses (streaming and
not) and answers from a :class:`Script`. Point a runtime (or an SDK) at
``server.base_url`` (Anthropic) or ``server.openai_base_url`` (OpenAI), then
assert on what it sent. The pytest plugin (``harness_core.testing.pytest_plugin``,
registered as a ``pytest11`` entry point) adds the ``scripted_model_server`` and
``isolated_home`` fixtures and the ``requires_runtime`` marker. See
``docs/testing.md``.
"""

from harness_core.testing._errors import ScriptError, ToolNotOfferedError
from harness_core.testing._faults import Fault
from harness_core.testing._loader import load_script, parse_script_text
from harness_core.testing._recording import SECRET_HEADERS, RecordedRequest, RequestKind
from harness_core.testing._request import (
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

__all__ = [
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
