"""Hook implementations of harness-claude-code (entry point ``claude-code`` in group ``harness``).

Importing this module imports nothing of the plugin but this module: not
``claude-agent-sdk``, the session code, the settings or the event classes (plugin discovery
stays cheap). The factory and the projection import them when the adapter is used, and
``harness_declare_builtins`` the built-in table when asked.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness_core import hookimpl

if TYPE_CHECKING:
    from harness_core import BuiltinTool, Part, ProjectionContext

__all__ = ["harness_adapters", "harness_declare_builtins", "harness_project_event"]

HARNESS_ID = "claude-code"
"""The same as :data:`harness_claude_code.HARNESS_ID` (a test checks), without importing the
settings."""

_EVENTS_MODULE = "harness_claude_code._events"
"""Where :class:`~harness_claude_code.ClaudeCodeEvent` lives: until it is imported, no event
can be one."""


def _factory(**settings: Any) -> Any:
    from ._adapter import claude_code

    return claude_code(**settings)


@hookimpl
def harness_adapters() -> Mapping[str, Any]:
    """``{"claude-code": claude_code}``."""
    return {HARNESS_ID: _factory}


@hookimpl
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """Claude Code's built-ins (see :mod:`harness_claude_code._builtins`) for ``claude-code``."""
    if harness_id != HARNESS_ID:
        return None
    from ._builtins import BUILTINS

    return list(BUILTINS)


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project :class:`~harness_claude_code.ClaudeCodeEvent`\\ s; ``None`` for other events."""
    events = sys.modules.get(_EVENTS_MODULE)
    if events is None or not isinstance(event, events.ClaudeCodeEvent):
        return None
    from ._projection import project
    from ._structured import answer_as_text

    return answer_as_text(project(event, context), context)
