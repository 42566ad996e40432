"""harness-builtin: the built-in harness (harness id ``builtin``).

A model loop written in Python that runs in the host process and works with any model
(Anthropic Messages, OpenAI Chat Completions and OpenAI-compatible local servers), with
its own tools: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``glob`` and ``ls``.

Use it through :class:`harness_core.agent.harness_agent.HarnessAgent` with ``harness="builtin"`` (the
plugin registers itself), or build the adapter yourself with
:func:`create_builtin_adapter`.

Names are imported on first use (PEP 562 ``__getattr__``): plugin discovery imports
:mod:`harness_builtin.plugin` through this package, and must not pay for the model loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "BUILTIN_TOOLS": "harness_builtin.tools",
    "BuiltinAdapter": "harness_builtin.adapter",
    "BuiltinSession": "harness_builtin.session",
    "BuiltinTurn": "harness_builtin.turn",
    "DEFAULT_LIMITS": "harness_builtin.settings",
    "DEFAULT_TOOL_SETTINGS": "harness_builtin.settings",
    "HARNESS_ID": "harness_builtin.adapter",
    "LiveConversation": "harness_builtin.live",
    "ModelClient": "harness_builtin.models",
    "ModelError": "harness_builtin.models",
    "ScriptedModelClient": "harness_builtin.models",
    "ToolError": "harness_builtin.tools",
    "ToolOffer": "harness_builtin.offer",
    "ToolSettings": "harness_builtin.settings",
    "TurnLimits": "harness_builtin.settings",
    "Workspace": "harness_builtin.workspace",
    "builtin_declarations": "harness_builtin.tools",
    "create_builtin_adapter": "harness_builtin.adapter",
    "create_model_client": "harness_builtin.models",
    "default_model_name": "harness_builtin.models",
    "parse_model_name": "harness_builtin.models",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


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
