"""An ACP agent wholly inside the session's OS-level sandbox (``harness_core.RuntimeConfinement``).

An ACP agent runs its built-in tools in its own process, so the adapter runs the whole
agent process inside the sandbox (:func:`confined_agent`): the sandbox's policy (workspace
read-write, system read-only, no ``$HOME``, private ``/tmp``, the network policy) plus the
agent's scratch directory (its config and home) and an explicit ``home=`` read-write, its
install read-only (the program, ``node`` and ``pi`` found on its ``PATH``; the running
Python when the host-tool relay or MCP servers run), and under ``network="none"`` the
loopback ports it needs bridged in: the model server of ``base_url`` and the host-tool
relay's channel. File reads and writes the agent asks the client for (``fs/*``) are done by
the host through the session sandbox, confined to the workspace, as before.

Without ``base_url`` the agent talks to whatever provider its own config names, which
``network="none"`` cannot reach: refused at session creation (:func:`check_reachable`).
Codex-based agents (codex-acp) are written ``sandbox_mode = "danger-full-access"`` when the
adapter writes their config: their own sandbox cannot start inside this one.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from harness_core import (
    HarnessCapabilityUnsupportedError,
    RuntimeConfinement,
    install_paths,
    python_paths,
)

from ._settings import HARNESS_ID, AcpSettings

__all__ = ["check_reachable", "confined_agent", "loopback_port"]

_LOOPBACK: Final = ("127.0.0.1", "localhost", "::1")
_HELPERS: Final = ("node", "pi")
"""Programs an agent's wrapper may start from its ``PATH`` (npm wrappers run node; pi-acp runs pi)."""


def loopback_port(url: str | None) -> int | None:
    """The port of ``url`` when it is on this machine's loopback, else ``None``."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.hostname not in _LOOPBACK:
        return None
    return parts.port or (443 if parts.scheme == "https" else 80)


def check_reachable(confinement: RuntimeConfinement | None, settings: AcpSettings) -> None:
    """Refuse a sandbox without network when the agent's model endpoint is not on 127.0.0.1.

    Raises:
        HarnessCapabilityUnsupportedError: ``network="none"`` and no loopback ``base_url``.
    """
    if confinement is None or confinement.network != "none":
        return
    if loopback_port(settings.base_url) is None:
        raise HarnessCapabilityUnsupportedError(
            HARNESS_ID, "an OS sandbox with network='none'",
            f"the agent runs inside the sandbox and must reach its model endpoint "
            f"({settings.base_url or 'whatever its own config names'}); only a model server on 127.0.0.1 given as "
            "base_url= can be bridged in without the network; use network='host'",
        )


def _nothing() -> None:
    return None


def confined_agent(confinement: RuntimeConfinement | None, argv: Sequence[str], env: Mapping[str, str],
                   settings: AcpSettings, scratch: Path,
                   relay_address: str | None) -> tuple[tuple[str, ...], Callable[[], None]]:
    """The agent's ``argv`` wrapped to run wholly inside the sandbox (see the module docs),
    and what releases the wrapper's host side once the agent exited; ``argv`` unchanged and
    a no-op without ``confinement``.

    Args:
        env: the agent's environment (its ``PATH`` finds the helpers).
        scratch: the session's scratch directory (the agent's config and home).
        relay_address: ``"127.0.0.1:<port>"`` of the host-tool relay, when it runs.

    Raises:
        HarnessCapabilityUnsupportedError: the sandbox cannot build the wrapper here.
    """
    if confinement is None:
        return tuple(argv), _nothing
    path = env.get("PATH")
    helpers = [found for name in _HELPERS if (found := shutil.which(name, path=path)) is not None]
    readable = install_paths(argv[0], *helpers)
    if relay_address is not None or settings.mcp_servers:
        readable += install_paths(sys.executable) + python_paths()
    writable = [scratch, *([settings.home] if settings.home is not None else [])]
    ports = [port for port in (loopback_port(settings.base_url),
                               loopback_port(f"tcp://{relay_address}") if relay_address else None) if port]
    launch = confinement.confine_runtime(argv, writable=writable, readable=readable, loopback_ports=ports)
    return launch.argv, launch.close
