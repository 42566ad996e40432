"""harness-codex: the Codex adapter for harness-core.

Drives the real Codex CLI through ``codex app-server`` (JSON-RPC lines over stdio), with
built-in approvals, host tools as dynamic tools, MCP servers, suspend/continue and
compaction. Use it by harness id (``HarnessAgent(harness="codex")``) or configure it::

    from harness_codex import codex

    adapter = codex(model="gpt-5.5", base_url="http://127.0.0.1:8000/v1", api_key="...")

See ``docs/codex.md``.
"""

from __future__ import annotations

from ._adapter import CodexAdapter, codex, find_codex
from ._builtins import BUILTINS, BY_NAME
from ._resumed import NOT_RUN
from ._session import CodexSession
from ._settings import HARNESS_ID, CodexSettings
from ._turn import CodexTurn

__all__ = ["BUILTINS", "BY_NAME", "HARNESS_ID", "NOT_RUN", "CodexAdapter", "CodexSession", "CodexSettings", "CodexTurn",
           "codex", "find_codex"]
