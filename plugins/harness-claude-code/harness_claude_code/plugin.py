"""Hook implementations of harness-claude-code (entry point ``claude-code`` in group ``harness``).

Importing this module imports neither ``claude-agent-sdk`` nor the adapter's session code:
the factory and the projection import them when the adapter is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_core import BuiltinTool, Part, ProjectionContext, hookimpl

from ._builtins import BUILTINS
from ._events import ClaudeCodeEvent
from ._settings import HARNESS_ID

__all__ = ["harness_adapters", "harness_declare_builtins", "harness_project_event"]


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
    return list(BUILTINS) if harness_id == HARNESS_ID else None


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project :class:`~harness_claude_code.ClaudeCodeEvent`\\ s; ``None`` for other events."""
    if not isinstance(event, ClaudeCodeEvent):
        return None
    from ._projection import project
    from ._structured import answer_as_text

    return answer_as_text(project(event, context), context)
