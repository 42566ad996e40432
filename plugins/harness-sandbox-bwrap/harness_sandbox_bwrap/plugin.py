"""The ``harness_sandboxes`` hook implementation: ``bwrap`` and ``bwrap-network`` by name.

``harness run --sandbox bwrap`` (no network) and ``--sandbox bwrap-network`` (the host's
network) build a :class:`~harness_sandbox_bwrap.BwrapSandbox` on the run's workspace. The
Python running ``harness`` (``sys.prefix``, ``sys.base_prefix``: its interpreter and
installed packages) is mounted read-only so that ``python -m unittest`` and the like work
inside, wherever that interpreter lives (under ``$HOME`` with pyenv or uv); nothing else
outside the system directories is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness_core import hookimpl

if TYPE_CHECKING:
    from harness_core import Sandbox

    from .policy import NetworkPolicy

__all__ = ["harness_sandboxes", "interpreter_paths", "sandbox_factory"]

_SYSTEM_PREFIXES = ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc", "/opt")


def interpreter_paths() -> list[str]:
    """The running interpreter's prefixes that lie outside the system directories."""
    found: list[str] = []
    for prefix in {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}:
        if not prefix.startswith(_SYSTEM_PREFIXES) and os.path.isdir(prefix) and prefix != "/":
            found.append(prefix)
    return sorted(found)


def sandbox_factory(network: NetworkPolicy) -> Callable[[Path], Sandbox]:
    """A factory making a :class:`BwrapSandbox` with ``network`` on a workspace.

    Raises (when called):
        BwrapUnavailableError: bubblewrap cannot confine commands here.
    """

    def make(workspace: Path) -> Sandbox:
        from .sandbox import BwrapSandbox  # on first use: plugin discovery calls this hook

        return BwrapSandbox(workspace, network=network, readable=interpreter_paths())

    make.__name__ = make.__qualname__ = f"bwrap_{network}"
    return make


@hookimpl
def harness_sandboxes() -> Mapping[str, Callable[[Path], Sandbox]]:
    """``{"bwrap": no network, "bwrap-network": host network}``."""
    return {"bwrap": sandbox_factory("none"), "bwrap-network": sandbox_factory("host")}
