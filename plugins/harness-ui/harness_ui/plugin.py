"""Hook implementations of harness-ui (entry point ``ui`` in the ``harness`` group):
``harness_cli_commands`` adds ``harness serve``. Web servers load only when it runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness_core import hookimpl

if TYPE_CHECKING:
    import click


@hookimpl
def harness_cli_commands() -> Sequence[click.Command]:
    """``harness serve``."""
    from .serve import serve

    return [serve]
