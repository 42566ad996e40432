"""harness-sandbox-bwrap: a harness-core sandbox whose commands run inside bubblewrap.

``BwrapSandbox(workspace, network="none" | "host", writable=[...], readable=[...], env=...)``
implements :class:`harness_core.Sandbox`; ``harness run --sandbox bwrap`` selects it by
name (the ``harness_sandboxes`` hook, :mod:`harness_sandbox_bwrap.plugin`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from .policy import SANDBOX_HOME, NetworkPolicy, SandboxPolicy, bwrap_prefix
    from .probe import INSTALL_HINT, BwrapUnavailableError, check_bwrap
    from .sandbox import BwrapSandbox
    from .view import BwrapView

__all__ = [
    "INSTALL_HINT",
    "SANDBOX_HOME",
    "BwrapSandbox",
    "BwrapUnavailableError",
    "BwrapView",
    "NetworkPolicy",
    "SandboxPolicy",
    "bwrap_prefix",
    "check_bwrap",
]

_LAZY: dict[str, str] = {
    "INSTALL_HINT": ".probe",
    "SANDBOX_HOME": ".policy",
    "BwrapSandbox": ".sandbox",
    "BwrapUnavailableError": ".probe",
    "BwrapView": ".view",
    "NetworkPolicy": ".policy",
    "SandboxPolicy": ".policy",
    "bwrap_prefix": ".policy",
    "check_bwrap": ".probe",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_sandbox_bwrap.plugin` through this package and must not pay for the sandbox code
(its command server loads ``ctypes``)."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
