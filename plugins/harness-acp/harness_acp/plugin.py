"""Hook implementations of harness-acp (entry point ``acp`` in group ``harness``).

Importing this module imports nothing of the plugin but this module: not the
``agent-client-protocol`` SDK, the session code, the settings, the profiles or the event
class (plugin discovery stays cheap). The factory imports the adapter when one is built,
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

HARNESS_ID = "acp"
"""The same as :data:`harness_acp.HARNESS_ID` (a test checks), without importing the settings."""

_EVENTS_MODULE = "harness_acp._events"
"""Where :class:`~harness_acp.AcpEvent` lives: until it is imported, no event can be one."""


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
    if harness_id != HARNESS_ID:
        return None
    from ._builtins import BUILTINS

    return list(BUILTINS)


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project :class:`~harness_acp.AcpEvent`\\ s; ``None`` for other events."""
    events = sys.modules.get(_EVENTS_MODULE)
    if events is None or not isinstance(event, events.AcpEvent):
        return None
    from ._projection import project

    return project(event, context)
