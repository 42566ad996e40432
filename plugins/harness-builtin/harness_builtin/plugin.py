"""Hook implementations of harness-builtin (entry point ``builtin`` in the ``harness`` group).

* ``harness_adapters``: the ``builtin`` factory, :func:`~harness_builtin.adapter.create_builtin_adapter`;
* ``harness_declare_builtins``: read, write, edit, bash, grep, glob, ls for harness ``builtin``;
* ``harness_cli_commands``: ``harness demo``.

Nothing heavy is imported here: model SDKs load when a session starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness_core import hookimpl

if TYPE_CHECKING:
    import click

    from harness_core import Adapter, AdapterFactory, BuiltinTool


def builtin_factory(**settings: Any) -> Adapter:
    """:func:`~harness_builtin.adapter.create_builtin_adapter`, imported on first call (so
    plugin discovery, which calls ``harness_adapters``, never loads the model loop)."""
    from .adapter import create_builtin_adapter

    return create_builtin_adapter(**settings)


@hookimpl
def harness_adapters() -> Mapping[str, AdapterFactory]:
    """``{"builtin": builtin_factory}``."""
    return {"builtin": builtin_factory}


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
