"""harness-acp: any Agent Client Protocol agent as a harness-core harness.

Drives an ACP agent (codex-acp, pi-acp, or any command speaking ACP on stdio) through the
``agent-client-protocol`` SDK. Use it by harness id with a profile
(``HarnessAgent(harness="acp", harness_options={"agent": "codex-acp"})``) or build an
adapter with :func:`acp`::

    from harness_acp import acp

    adapter = acp(agent="pi-acp")
    adapter = acp(command=["my-agent", "--acp"], permission_mode_mapping={"allow-reads": "read-only"})

The SDK is imported only when an adapter is built or used. See ``docs/acp.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._builtins import BUILTINS, BY_KIND, BY_NAME
from ._events import AcpEvent
from ._profiles import PROFILES, AgentProfile, Launch, LaunchRequest
from ._settings import HARNESS_ID, HOST_PREFIX, HOST_SERVER, AcpSettings

if TYPE_CHECKING:
    from ._adapter import AcpAdapter, acp
    from ._session import AcpSession
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

_LAZY = {"AcpAdapter": "._adapter", "acp": "._adapter", "AcpSession": "._session", "AcpTurn": "._turn"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness_acp' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)
