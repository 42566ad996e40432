"""harness-pi: the pi coding agent adapter for harness-core, over pi's RPC mode.

Use it by harness id (``HarnessAgent(harness="pi", harness_options={...})``) or build a
configured adapter with :func:`pi`::

    from harness_pi import pi

    adapter = pi(model="qwen2.5-coder", base_url="http://localhost:11434/v1")

pi runs as ``pi --mode rpc`` (JSONL on stdio) in an isolated temporary home; host tools
and approvals travel through a generated pi extension. See ``docs/pi.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from ._adapter import PiAdapter, pi
    from ._builtins import BUILTINS, BY_NAME, BY_NATIVE
    from ._events import PiCompaction, PiEvent, PiRecord, PiToolCall, PiToolProgress, PiToolResult
    from ._session import PiSession
    from ._settings import HARNESS_ID, PiSettings
    from ._turn import PiTurn

__all__ = [
    "BUILTINS",
    "BY_NAME",
    "BY_NATIVE",
    "HARNESS_ID",
    "PiAdapter",
    "PiCompaction",
    "PiEvent",
    "PiRecord",
    "PiSession",
    "PiSettings",
    "PiToolCall",
    "PiToolProgress",
    "PiToolResult",
    "PiTurn",
    "pi",
]

_LAZY: dict[str, str] = {
    "PiAdapter": "._adapter",
    "pi": "._adapter",
    "BUILTINS": "._builtins",
    "BY_NAME": "._builtins",
    "BY_NATIVE": "._builtins",
    "PiCompaction": "._events",
    "PiEvent": "._events",
    "PiRecord": "._events",
    "PiToolCall": "._events",
    "PiToolProgress": "._events",
    "PiToolResult": "._events",
    "PiSession": "._session",
    "HARNESS_ID": "._settings",
    "PiSettings": "._settings",
    "PiTurn": "._turn",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_pi.plugin` through this package and must not pay for the settings or event
classes."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
