"""Helpers for testing code that drives Codex offline.

:func:`write_model_catalog` writes a one-model ``model_catalog_json`` for Codex 0.171.0 whose
model (:data:`CATALOG_MODEL`) has no ``tool_search``: Codex then offers MCP tools directly as
``namespace`` tools (``mcp__<server>``), which a scripted model can call. For models Codex
knows (``gpt-5.5``...), MCP tools are deferred behind the client-side ``tool_search`` tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Final

import anyio

__all__ = ["CATALOG_MODEL", "eventually", "write_model_catalog"]

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


async def eventually(predicate: Callable[[], bool], *, timeout: float = 20.0, what: str = "condition") -> None:
    """Poll ``predicate`` (a quick synchronous check of outside state) every 50 ms until it holds.

    Raises:
        TimeoutError: it did not hold within ``timeout`` seconds (the message names ``what``).
    """
    for _ in range(max(1, int(timeout / 0.05))):
        if predicate():
            return
        await anyio.sleep(0.05)
    raise TimeoutError(f"{what} did not hold within {timeout} s")
