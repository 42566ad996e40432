"""harness-claude-code: the Claude Code adapter for harness-core.

Drives the real Claude Code runtime through Anthropic's ``claude-agent-sdk`` (whose wheel
bundles the CLI). Use it by harness id (``HarnessAgent(harness="claude-code")``) or build a
configured adapter with :func:`claude_code`::

    from harness_claude_code import claude_code

    adapter = claude_code(model="claude-sonnet-4-5", mcp_servers={...})

``claude-agent-sdk`` is imported only when an adapter is built or used, never when the
plugin is discovered. See ``docs/claude-code.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from ._adapter import ClaudeCodeAdapter, claude_code, find_cli
    from ._builtins import BUILTINS, BY_NAME, BY_NATIVE, builtin_for_native
    from ._events import ClaudeCodeEvent, TurnView
    from ._session import ClaudeCodeSession
    from ._settings import HARNESS_ID, HOST_SERVER, ClaudeCodeSettings
    from ._turn import ClaudeCodeTurn

__all__ = [
    "BUILTINS",
    "BY_NAME",
    "BY_NATIVE",
    "HARNESS_ID",
    "HOST_SERVER",
    "ClaudeCodeAdapter",
    "ClaudeCodeEvent",
    "ClaudeCodeSession",
    "ClaudeCodeSettings",
    "ClaudeCodeTurn",
    "TurnView",
    "builtin_for_native",
    "claude_code",
    "find_cli",
]

_LAZY: dict[str, str] = {
    "ClaudeCodeAdapter": "._adapter",
    "claude_code": "._adapter",
    "find_cli": "._adapter",
    "BUILTINS": "._builtins",
    "BY_NAME": "._builtins",
    "BY_NATIVE": "._builtins",
    "builtin_for_native": "._builtins",
    "ClaudeCodeEvent": "._events",
    "TurnView": "._events",
    "ClaudeCodeSession": "._session",
    "HARNESS_ID": "._settings",
    "HOST_SERVER": "._settings",
    "ClaudeCodeSettings": "._settings",
    "ClaudeCodeTurn": "._turn",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_claude_code.plugin` through this package and must not pay for the settings or
event classes (nor the SDK)."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
