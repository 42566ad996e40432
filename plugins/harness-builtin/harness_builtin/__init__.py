"""harness-builtin: the built-in harness (harness id ``builtin``).

A model loop written in Python that runs in the host process and works with any model
(Anthropic Messages, OpenAI Chat Completions and OpenAI-compatible local servers), with
its own tools: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``glob`` and ``ls``.

Use it through :class:`harness_core.agent.harness_agent.HarnessAgent` with ``harness="builtin"`` (the
plugin registers itself), or build the adapter yourself with
:func:`create_builtin_adapter`.
"""

from .adapter import HARNESS_ID, BuiltinAdapter, create_builtin_adapter
from .live import LiveConversation
from .models import (
    ModelClient,
    ModelError,
    ScriptedModelClient,
    create_model_client,
    default_model_name,
    parse_model_name,
)
from .offer import ToolOffer
from .session import BuiltinSession
from .settings import DEFAULT_LIMITS, DEFAULT_TOOL_SETTINGS, ToolSettings, TurnLimits
from .tools import BUILTIN_TOOLS, ToolError, builtin_declarations
from .turn import BuiltinTurn
from .workspace import Workspace

__all__ = [
    "BUILTIN_TOOLS",
    "DEFAULT_LIMITS",
    "DEFAULT_TOOL_SETTINGS",
    "HARNESS_ID",
    "BuiltinAdapter",
    "BuiltinSession",
    "BuiltinTurn",
    "LiveConversation",
    "ModelClient",
    "ModelError",
    "ScriptedModelClient",
    "ToolError",
    "ToolOffer",
    "ToolSettings",
    "TurnLimits",
    "Workspace",
    "builtin_declarations",
    "create_builtin_adapter",
    "create_model_client",
    "default_model_name",
    "parse_model_name",
]
