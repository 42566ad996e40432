"""Hook implementations of harness-pi (entry point ``pi`` in group ``harness``).

Importing this module starts nothing and imports nothing of the plugin but this module:
the settings, the event classes and the session code load when the adapter is used (the
factory, the projection) and the built-in table when ``harness_declare_builtins`` asks.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness_core import hookimpl

if TYPE_CHECKING:
    from harness_core import BuiltinTool, Part, ProjectionContext

__all__ = ["harness_adapters", "harness_declare_builtins", "harness_project_event"]

HARNESS_ID = "pi"
"""The same as :data:`harness_pi.HARNESS_ID` (a test checks), without importing the settings."""

_EVENTS_MODULE = "harness_pi._events"
"""Where pi's native event classes live: until it is imported, no event can be one of them."""


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
    if harness_id != HARNESS_ID:
        return None
    from ._builtins import BUILTINS

    return list(BUILTINS)


@hookimpl
def harness_project_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Project pi's native events (:data:`~harness_pi.PiEvent`); ``None`` for other events."""
    events = sys.modules.get(_EVENTS_MODULE)
    if events is None or not isinstance(event, events.PiEvent):
        return None
    from ._projection import project

    return project(event, context)
