"""harness-acp: any Agent Client Protocol agent as a harness-core harness.

Drives an ACP agent (codex-acp, pi-acp, or any command speaking ACP on stdio) through the
``agent-client-protocol`` SDK. Use it by harness id with a profile
(``HarnessAgent(harness="acp", harness_options={"agent": "codex-acp"})``) or build an
adapter with :func:`acp`::

    from harness_acp import acp

    adapter = acp(agent="pi-acp")
    adapter = acp(command=["my-agent", "--acp"], permission_mode_mapping={"allow-reads": "read-only"})

Every name is imported on first use, and the SDK only when an adapter is built or used. See
``docs/acp.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from ._adapter import AcpAdapter, acp
    from ._builtins import BUILTINS, BY_KIND, BY_NAME
    from ._events import AcpEvent
    from ._profiles import PROFILES, AgentProfile, Launch, LaunchRequest
    from ._session import AcpSession
    from ._settings import HARNESS_ID, HOST_PREFIX, HOST_SERVER, AcpSettings
    from ._turn import AcpTurn

__all__ = [
    "BUILTINS",
    "BY_KIND",
    "BY_NAME",
    "HARNESS_ID",
    "HOST_PREFIX",
    "HOST_SERVER",
    "PROFILES",
    "AcpAdapter",
    "AcpEvent",
    "AcpSession",
    "AcpSettings",
    "AcpTurn",
    "AgentProfile",
    "Launch",
    "LaunchRequest",
    "acp",
]

_LAZY: dict[str, str] = {
    "AcpAdapter": "._adapter",
    "acp": "._adapter",
    "BUILTINS": "._builtins",
    "BY_KIND": "._builtins",
    "BY_NAME": "._builtins",
    "AcpEvent": "._events",
    "AgentProfile": "._profiles",
    "Launch": "._profiles",
    "LaunchRequest": "._profiles",
    "PROFILES": "._profiles",
    "AcpSession": "._session",
    "AcpSettings": "._settings",
    "HARNESS_ID": "._settings",
    "HOST_PREFIX": "._settings",
    "HOST_SERVER": "._settings",
    "AcpTurn": "._turn",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_acp.plugin` through this package and must not pay for the settings, event or
profile classes (nor the SDK)."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
