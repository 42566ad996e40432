"""Hook implementations of harness-pi (entry point ``pi`` in group ``harness``).

Importing this module starts nothing and imports none of the session code: the factory
and the projection import it when the adapter is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_core import BuiltinTool, Part, ProjectionContext, hookimpl

from ._builtins import BUILTINS
from ._events import (
    PiCompaction,
    PiRecord,
    PiRefusedHostCall,
    PiToolCall,
    PiToolProgress,
    PiToolResult,
)
from ._settings import HARNESS_ID

__all__ = ["harness_adapters", "harness_declare_builtins", "harness_project_event"]


def _factory(**settings: Any) -> Any:
    from ._adapter import pi

    return pi(**settings)


@hookimpl
def harness_adapters() -> Mapping[str, Any]:
    """``{"pi": pi}``."""
    return {HARNESS_ID: _factory}


@hookimpl
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """pi's built-ins (read, write, edit, bash, grep, glob = pi's find, ls) for ``pi``."""
    return list(BUILTINS) if harness_id == HARNESS_ID else None


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project pi's native events; ``None`` for other events."""
    if not isinstance(event, PiRecord | PiToolCall | PiToolProgress | PiToolResult | PiRefusedHostCall | PiCompaction):
        return None
    from ._projection import project

    return project(event, context)

