"""Each adapter page's "Agent capabilities" table says what the installed adapter declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness_core import capabilities_of, get_plugin_manager

DOCS = Path(__file__).resolve().parents[2] / "docs"
_TABLE = re.compile(r"<!-- capabilities:start -->\n(.*?)<!-- capabilities:end -->", re.S)
_ROW = re.compile(r"^\| `([a-z-]+)` \| (yes|no) \| (.*) \|$", re.M)


@pytest.mark.parametrize("harness_id", ["builtin", "claude-code", "codex", "pi", "acp"])
def test_the_capability_table_matches_the_declarations(harness_id: str) -> None:
    adapters = get_plugin_manager().hooks.adapters()
    if harness_id not in adapters:
        pytest.skip(f"the {harness_id!r} adapter plugin is not installed")
    match = _TABLE.search((DOCS / f"{harness_id}.md").read_text(encoding="utf-8"))
    assert match is not None, f"docs/{harness_id}.md has no capability table"
    documented = [(name, ok == "yes", detail.strip()) for name, ok, detail in _ROW.findall(match.group(1))]
    declared = [(name, ok, detail.replace("|", "/")) for name, ok, detail in
                capabilities_of(adapters[harness_id][1]()).rows()]
    assert documented == declared, f"docs/{harness_id}.md: regenerate the table from the adapter's declarations"
