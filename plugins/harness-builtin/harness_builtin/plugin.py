"""Hook implementations of harness-builtin (entry point ``builtin`` in the ``harness`` group).

* ``harness_adapters``: the ``builtin`` factory, :func:`~harness_builtin.adapter.create_builtin_adapter`;
* ``harness_declare_builtins``: read, write, edit, bash, grep, glob, ls for harness ``builtin``;
* ``harness_cli_commands``: ``harness demo``.

Nothing heavy is imported here: model SDKs load when a session starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from harness_core import hookimpl

if TYPE_CHECKING:
    import click

    from harness_core import AdapterFactory, BuiltinTool


@hookimpl
def harness_adapters() -> Mapping[str, AdapterFactory]:
    """``{"builtin": create_builtin_adapter}``."""
    from .adapter import HARNESS_ID, create_builtin_adapter

    return {HARNESS_ID: create_builtin_adapter}


@hookimpl
def harness_declare_builtins(harness_id: str) -> Sequence[BuiltinTool] | None:
    """The built-in tools of harness ``builtin`` (``None`` for other harnesses)."""
    if harness_id != "builtin":
        return None
    from .tools import builtin_declarations

    return builtin_declarations()


@hookimpl
def harness_cli_commands() -> Sequence[click.Command]:
    """``harness demo``."""
    from .demo.command import demo

    return [demo]
