"""The session's OS-level sandbox for Codex: the whole app-server runs inside it.

Codex runs its shell commands and patches itself, so a session sandbox's ``run_command``
never sees them. A session sandbox offering :class:`harness_core.RuntimeConfinement`
(``harness_sandbox_bwrap.BwrapSandbox``) is honoured by running the **whole** ``codex
app-server`` inside it (:func:`confined_app_server`): the sandbox's policy (workspace
read-write, system read-only, no ``$HOME``, private ``/tmp``, the network policy) plus
Codex's own homes (``HOME``, ``CODEX_HOME``) read-write and its install read-only; under
``network="none"`` a model server on 127.0.0.1 is bridged in (nothing else is reachable).
Codex's own sandbox stays off inside (``danger-full-access``: a second bubblewrap cannot
start in the first); approvals work as without a sandbox, and whatever Codex runs,
approved or not, stays inside the boundary.

Why not Codex's own ``workspace-write`` sandbox (checked against codex 0.171.0 on this
machine): it applies ``apply_patch`` in its own process, outside the writable roots, under
``never``; it runs a command approved through its ``untrusted`` flow outside its sandbox;
and under ``on-request`` its sandbox helper (``codex-linux-sandbox``) is missing when
``CODEX_HOME`` lies under the temporary directory (the adapter's default), so every command
fails. Each is an escape or a broken session; the outer sandbox has none of them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from harness_core import (
    ConfinedLaunch,
    HarnessCapabilityUnsupportedError,
    RuntimeConfinement,
    install_paths,
    python_paths,
)

from ._settings import HARNESS_ID, CodexSettings

__all__ = ["check_reachable", "confined_app_server", "loopback_port"]

_LOOPBACK: Final = ("127.0.0.1", "localhost", "::1")


def loopback_port(base_url: str | None) -> int | None:
    """The port of ``base_url`` when it is on this machine's loopback, else ``None``."""
    if base_url is None:
        return None
    parts = urlsplit(base_url)
    if parts.hostname not in _LOOPBACK:
        return None
    return parts.port or (443 if parts.scheme == "https" else 80)


def check_reachable(confinement: RuntimeConfinement | None, settings: CodexSettings) -> None:
    """Refuse a sandbox without network when Codex's model endpoint is not on 127.0.0.1.

    Raises:
        HarnessCapabilityUnsupportedError: ``network="none"`` and the endpoint is elsewhere
            (a cloud provider, another host): only loopback ports can be bridged in.
    """
    if confinement is None or confinement.network != "none":
        return
    if loopback_port(settings.base_url) is None:
        raise HarnessCapabilityUnsupportedError(
            HARNESS_ID, "an OS sandbox with network='none'",
            f"Codex runs inside the sandbox and must reach its model endpoint "
            f"({settings.base_url or 'the default endpoint'}); only a model server on 127.0.0.1 can be bridged "
            "in without the network; use network='host'",
        )


def confined_app_server(confinement: RuntimeConfinement, argv: list[str], settings: CodexSettings,
                        home: Path, codex_home: Path) -> ConfinedLaunch:
    """The app-server's ``argv`` wrapped to run wholly inside the OS sandbox.

    Raises:
        HarnessCapabilityUnsupportedError: the sandbox cannot build the wrapper here.
    """
    node = shutil.which("node")  # the CLI is a node script (``#!/usr/bin/env node``)
    readable = install_paths(argv[0], *([node] if node is not None else []))
    if settings.mcp_servers:  # stdio MCP servers start inside too: the running Python, read-only
        readable += install_paths(sys.executable) + python_paths()
    port = loopback_port(settings.base_url)
    writable = [home] if codex_home.is_relative_to(home) else [home, codex_home]
    return confinement.confine_runtime(argv, writable=writable, readable=readable,
                                       loopback_ports=[port] if port is not None else [])
