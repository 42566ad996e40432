"""pi wholly inside the session's OS-level sandbox (``harness_core.RuntimeConfinement``).

pi runs its tools (``bash``, ``write``, ``edit``...) in its own process, so the adapter runs
the whole pi process inside the sandbox: :func:`confined_argv` wraps pi's command line with
the sandbox's policy (workspace read-write, system read-only, no ``$HOME``, private
``/tmp``, the network policy) plus what pi itself needs:

* its session directory (:class:`~harness_pi._launch.PiHome`) read-write, except the files
  the adapter wrote for it (``models.json``, ``settings.json``, ``mcp.json``, the generated
  extension, the instructions) and ``~/.pi/agent/extensions``, which are read-only so that a
  tool cannot rewrite pi's configuration or plant an extension for the next start;
* its install read-only (the ``node_modules`` holding pi, the node running it, extra
  extensions; the running Python when MCP servers are configured);
* with ``network="none"``, its model endpoint bridged in when it is on 127.0.0.1 (see
  ``harness_sandbox_bwrap.runtime``); a model endpoint elsewhere cannot be reached without
  the host network, so that is refused at session creation.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
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

from ._launch import PiHome
from ._settings import PiSettings

__all__ = ["check_reachable", "confined_argv", "loopback_port"]

HARNESS_ID: Final = "pi"
_LOOPBACK: Final = ("127.0.0.1", "localhost", "::1")


def loopback_port(base_url: str | None) -> int | None:
    """The port of ``base_url`` when it is on this machine's loopback, else ``None``."""
    if base_url is None:
        return None
    parts = urlsplit(base_url)
    if parts.hostname not in _LOOPBACK:
        return None
    return parts.port or (443 if parts.scheme == "https" else 80)


def check_reachable(confinement: RuntimeConfinement, settings: PiSettings) -> None:
    """Refuse a sandbox without network whose pi could not reach its model.

    Raises:
        HarnessCapabilityUnsupportedError: ``network="none"`` and the model endpoint is not on
            127.0.0.1 (a cloud provider, another host).
    """
    if confinement.network == "none" and loopback_port(settings.base_url) is None:
        raise HarnessCapabilityUnsupportedError(
            HARNESS_ID, "an OS sandbox with network='none'",
            f"pi must reach its model endpoint ({settings.base_url or 'its built-in provider'}) from inside the "
            "sandbox; only a model server on 127.0.0.1 can be bridged in without the network; use network='host'",
        )


def _read_only(home: PiHome) -> list[Path]:
    extensions = home.agent_dir / "extensions"
    extensions.mkdir(parents=True, exist_ok=True)
    files = [home.agent_dir / name for name in ("models.json", "settings.json", "mcp.json")]
    files += [home.extension_path, home.root / "instructions.md"]
    return [extensions, *(path for path in files if path.exists())]


def confined_argv(confinement: RuntimeConfinement, argv: Sequence[str], settings: PiSettings,
                  home: PiHome, path_env: str) -> ConfinedLaunch:
    """pi's ``argv`` wrapped to run inside the sandbox (see the module docs).

    Args:
        path_env: the ``PATH`` pi runs with (to find the node that runs it).

    Raises:
        HarnessCapabilityUnsupportedError: the sandbox cannot build the wrapper here.
    """
    programs: list[str | os.PathLike[str]] = [argv[0], *(part for part in argv[1:2] if part.endswith(".js"))]
    node = shutil.which("node", path=path_env)
    if node is not None:
        programs.append(node)
    if settings.node_path is not None:
        programs.append(settings.node_path)
    readable = install_paths(*programs)
    readable += [path for path in settings.extensions if path.exists()]
    if settings.mcp_servers:
        readable += install_paths(sys.executable) + python_paths()
    readable += _read_only(home)
    port = loopback_port(settings.base_url)
    return confinement.confine_runtime(argv, writable=[home.root], readable=readable,
                                       loopback_ports=[port] if port is not None else [])
