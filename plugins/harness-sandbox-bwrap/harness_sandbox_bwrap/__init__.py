"""harness-sandbox-bwrap: a harness-core sandbox whose commands run inside bubblewrap.

``BwrapSandbox(workspace, network="none" | "host", writable=[...], readable=[...], env=...)``
implements :class:`harness_core.Sandbox`; ``harness run --sandbox bwrap`` selects it by
name (the ``harness_sandboxes`` hook, :mod:`harness_sandbox_bwrap.plugin`).
"""

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
