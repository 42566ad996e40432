"""Hook implementations of harness-codex (entry point ``codex`` in group ``harness``).

Importing this module starts nothing and imports no session code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_core import BuiltinTool, hookimpl

from ._builtins import BUILTINS
from ._settings import HARNESS_ID

__all__ = ["harness_adapters", "harness_declare_builtins"]


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
    return list(BUILTINS) if harness_id == HARNESS_ID else None
