"""The plain table renderer draws exactly what rich draws, or declines (issue 17).

Every generated table (widths from 24 to 200 columns, cells from short words to long
unbreakable ones, multi-line cells) is rendered by rich, configured as ``harness plugins``
configures it, and by :func:`render_plain_table`; where the plain renderer answers, the
two texts must be identical, and it must answer for most of them (else it saves nothing).
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness_core.cli.plain_table import console_width, render_plain_table

HEADERS = ("Name", "Distribution", "Kind", "Hooks (harness_*)", "Status")
MARKUP_FREE = (False, False, False, False, True)
ELLIPSIS = (False, False, True, False, False)


def _rich(rows: Sequence[Sequence[str]], width: int, after: Sequence[str]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, highlight=False, color_system=None, force_terminal=False,
                      legacy_windows=False, force_jupyter=False)
    table = Table(title="harness plugins", title_justify="left", expand=False)
    for header in HEADERS:
        table.add_column(header, style="bold" if header == "Name" else None,
                         overflow="ellipsis" if header == "Kind" else "fold")
    for row in rows:
        table.add_row(*row[:4], Text(row[4], style="green"))
    console.print(table)
    for line in after:
        console.print(Text(line, style="bold red"))
    return out.getvalue()


_WORDS = ("loaded", "failed", "a", "harness-agent-core", "0.1.0", "import", "failed:", "RuntimeError:",
          "this", "plugin", "is", "broken", "on", "purpose", "(at", "/tmp/x/broken_plugin_mod.py:1)",
          "adapters", "declare_builtins", "x" * 45, "y" * 23)


def _text(rng: random.Random, lines: int, words: int) -> str:
    return "\n".join(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, words)))
                     for _ in range(rng.randint(1, lines)))


def _row(rng: random.Random) -> list[str]:
    name = rng.choice(["acp", "builtin", "default-projection", "claude-code", "tools-git", "a-long-plugin-name-x"])
    dist = rng.choice(["harness-agent-core 0.1.0", "harness-acp 0.1.0", "-", "broken-plugin 0.1",
                       "some-very-long-distribution-name 12.0.3"])
    kind = rng.choice(["core", "adapter", "tools", "policy", "other"])
    hooks = "\n".join(rng.sample(["adapters", "declare_builtins", "project_event", "execute_tool", "tools",
                                  "cli_commands", "approve_call", "sandboxes"], rng.randint(1, 3)))
    status = rng.choice(["loaded", "disabled", "failed\n" + _text(rng, 2, 9), "loaded\nconflict: " + _text(rng, 1, 6)])
    return [name, dist, kind, hooks, status]


def test_plain_rendering_is_rich_s_rendering_wherever_it_answers() -> None:
    rng = random.Random(1717)
    answered = 0
    for case in range(1500):
        rows = [_row(rng) for _ in range(rng.randint(1, 8))]
        width = rng.choice([24, 30, 40, 50, 60, 70, 79, 80, 81, 90, 100, 120, 200, rng.randint(24, 200)])
        after = [f"conflict: {_text(rng, 1, 5)}"] if rng.random() < 0.2 else []
        after.append(f"{len(rows)} plugin(s), 0 failed")
        plain = render_plain_table("harness plugins", HEADERS, rows, width, markup_free=MARKUP_FREE,
                                   ellipsis=ELLIPSIS, after=after)
        if plain is not None:
            answered += 1
            assert plain == _rich(rows, width, after), (case, width, rows, after)
    assert answered > 900, answered


def test_the_real_listing_at_80_columns_is_drawn_plainly() -> None:
    rows = [["default-executor", "harness-agent-core 0.1.0", "core", "execute_tool", "loaded"],
            ["claude-code", "harness-claude-code 0.1.0", "adapter", "adapters\ndeclare_builtins\nproject_event",
             "loaded"],
            ["sandbox-bwrap", "harness-sandbox-bwrap 0.1.0", "other", "sandboxes", "loaded"]]
    after = ["3 plugin(s), 0 failed"]
    plain = render_plain_table("harness plugins", HEADERS, rows, 80, markup_free=MARKUP_FREE, ellipsis=ELLIPSIS,
                               after=after)
    assert plain is not None and plain == _rich(rows, 80, after)
    assert "│ harness-agent-co │" in plain or "harness-agent-cor" in plain  # 80 columns: it folded


@pytest.mark.parametrize(
    "cell",
    ["a [bold]b[/bold]", "emoji :smile: here", "tab\there", "two  spaces", "trailing ", "ünïcode", ""],
)
def test_what_rich_might_render_differently_is_declined(cell: str) -> None:
    rows = [["acp", cell, "adapter", "adapters", "loaded"]]
    assert render_plain_table("harness plugins", HEADERS, rows, 100, markup_free=MARKUP_FREE, ellipsis=ELLIPSIS) is None


def test_a_shrunk_ellipsis_column_or_a_too_narrow_console_is_declined() -> None:
    rows = [["acp", "harness-acp 0.1.0", "a-very-long-kind-value", "adapters", "loaded"]]
    assert render_plain_table("harness plugins", HEADERS, rows, 40, markup_free=MARKUP_FREE, ellipsis=ELLIPSIS) is None
    assert render_plain_table("harness plugins", HEADERS, rows[:1], 12, markup_free=MARKUP_FREE,
                              ellipsis=ELLIPSIS) is None


def test_console_width_follows_columns_and_refuses_forced_terminals() -> None:
    assert console_width({"COLUMNS": "123"}, fds=()) in (123, None)  # None only if stdout is a terminal
    assert console_width({"COLUMNS": "123", "FORCE_COLOR": "1"}, fds=()) is None
    assert console_width({"TTY_COMPATIBLE": "1"}, fds=()) is None
