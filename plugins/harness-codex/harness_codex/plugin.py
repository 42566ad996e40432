"""Hook implementations of harness-codex (entry point ``codex`` in group ``harness``).

Importing this module starts nothing and imports nothing of the plugin but this module: the
settings and the session code load when an adapter is built, the built-in table when
``harness_declare_builtins`` asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness_core import hookimpl

if TYPE_CHECKING:
    from harness_core import BuiltinTool

__all__ = ["harness_adapters", "harness_declare_builtins"]

HARNESS_ID = "codex"
"""The same as :data:`harness_codex.HARNESS_ID` (a test checks), without importing the settings."""


def _factory(**settings: Any) -> Any:
    from ._adapter import codex

    return codex(**settings)


@hookimpl
def harness_adapters() -> Mapping[str, Any]:
    """``{"codex": codex}``."""
    return {HARNESS_ID: _factory}


@hookimpl
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """Codex's built-ins (see :mod:`harness_codex._builtins`) for ``codex``."""
    if harness_id != HARNESS_ID:
        return None
    from ._builtins import BUILTINS

    return list(BUILTINS)
