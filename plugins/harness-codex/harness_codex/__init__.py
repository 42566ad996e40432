"""harness-codex: the Codex adapter for harness-core.

Drives the real Codex CLI through ``codex app-server`` (JSON-RPC lines over stdio), with
built-in approvals, host tools as dynamic tools, MCP servers, suspend/continue and
compaction. Use it by harness id (``HarnessAgent(harness="codex")``) or configure it::

    from harness_codex import codex

    adapter = codex(model="gpt-5.5", base_url="http://127.0.0.1:8000/v1", api_key="...")

See ``docs/codex.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from ._adapter import CodexAdapter, codex, find_codex
    from ._builtins import BUILTINS, BY_NAME
    from ._resumed import NOT_RUN
    from ._session import CodexSession
    from ._settings import HARNESS_ID, CodexSettings
    from ._turn import CodexTurn

__all__ = ["BUILTINS", "BY_NAME", "HARNESS_ID", "NOT_RUN", "CodexAdapter", "CodexSession", "CodexSettings", "CodexTurn",
           "codex", "find_codex"]

_LAZY = {
    "CodexAdapter": "._adapter",
    "codex": "._adapter",
    "find_codex": "._adapter",
    "BUILTINS": "._builtins",
    "BY_NAME": "._builtins",
    "HARNESS_ID": "._settings",
    "CodexSettings": "._settings",
    "NOT_RUN": "._resumed",
    "CodexSession": "._session",
    "CodexTurn": "._turn",
}
"""Public name -> defining module, imported on first use (PEP 562), so plugin discovery (which
imports :mod:`harness_codex.plugin` through this package) loads neither the generated protocol
models nor the settings."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
