"""Hook implementations of harness-acp (entry point ``acp`` in group ``harness``).

Importing this module imports neither the ``agent-client-protocol`` SDK nor the session
code: the factory imports them when an adapter is built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_core import BuiltinTool, Part, ProjectionContext, hookimpl

from ._builtins import BUILTINS
from ._events import AcpEvent

__all__ = ["harness_adapters", "harness_declare_builtins", "harness_project_event"]

HARNESS_ID = "acp"


def _factory(**settings: Any) -> Any:
    from ._adapter import acp

    return acp(**settings)


@hookimpl
def harness_adapters() -> Mapping[str, Any]:
    """``{"acp": acp}``."""
    return {HARNESS_ID: _factory}


@hookimpl
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """The built-ins by ACP tool kind (see :mod:`harness_acp._builtins`) for ``acp``."""
    return list(BUILTINS) if harness_id == HARNESS_ID else None


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project :class:`~harness_acp.AcpEvent`\\ s; ``None`` for other events."""
    if not isinstance(event, AcpEvent):
        return None
    from ._projection import project

    return project(event, context)

