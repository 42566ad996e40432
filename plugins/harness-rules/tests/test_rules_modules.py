"""Every module of ``harness_rules`` is under 400 lines (one concept each; the repository's
size check covers the core and two plugins, this one covers harness-rules)."""

from __future__ import annotations

from pathlib import Path

import harness_rules

PACKAGE = Path(harness_rules.__file__).resolve().parent
MAX_LINES = 400


def test_no_harness_rules_module_is_over_400_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in sorted(PACKAGE.glob("*.py"))}
    assert len(sizes) > 20, sizes  # the package was found
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"
