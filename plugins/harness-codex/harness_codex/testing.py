"""Helpers for testing code that drives Codex offline.

:func:`write_model_catalog` writes a one-model ``model_catalog_json`` for Codex 0.171.0 whose
model (:data:`CATALOG_MODEL`) has no ``tool_search``: Codex then offers MCP tools directly as
``namespace`` tools (``mcp__<server>``), which a scripted model can call. For models Codex
knows (``gpt-5.5``...), MCP tools are deferred behind the client-side ``tool_search`` tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

__all__ = ["CATALOG_MODEL", "write_model_catalog"]

CATALOG_MODEL: Final = "harness-test"


def write_model_catalog(path: Path) -> Path:
    """Write the catalog to ``path`` and return it; use ``codex(model=CATALOG_MODEL,
    config={"model_catalog_json": str(path)})``. Fields are those codex 0.171.0 requires."""
    entry = {
        "slug": CATALOG_MODEL, "display_name": "harness test model", "supported_reasoning_levels": [],
        "shell_type": "unified_exec", "visibility": "list", "supported_in_api": True, "priority": 0,
        "support_verbosity": False, "truncation_policy": {"mode": "tokens", "limit": 10000},
        "apply_patch_tool_type": "freeform", "supports_search_tool": False, "input_modalities": ["text"],
        "context_window": 200000, "experimental_supported_tools": [],
        "base_instructions": "You are a coding agent. Use the tools you are given.",
    }
    path.write_text(json.dumps({"models": [entry]}))
    return path
