"""A box table rendered without rich, for output that is not a terminal (issue 17).

``harness plugins`` prints a rich ``Table`` (heavy head box, one space of padding each side,
folding columns, a left-justified title). Importing and running rich costs about a tenth of
the command's start-up budget, so when stdout is not a terminal, :func:`render_plain_table`
draws the same characters itself, for the tables it is sure to draw exactly as rich would:
printable ASCII text with single spaces between words, no markup or emoji syntax in plain
string cells, a console width rich would take from ``COLUMNS`` or its 80-column default,
UTF-8 output, and at most the width reduction that shrinks the widest columns toward the
next widest (no even reduction of every column, no ellipsis cut). Anything else returns
``None`` and the caller uses rich. ``tests/core/test_cli_plain_table.py`` compares both
renderings on thousands of generated tables.

Layout rules (what rich does for these tables): a column is as wide as its longest line plus
two; when the table is wider than the console, the widest columns shrink together toward
the next widest until it fits (shares rounded half to even, left to right); cell text wraps
at spaces, and a word longer than its column is cut into column-wide pieces, starting on a
line of its own (its last piece keeps its trailing space and the words after it).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence

__all__ = ["console_width", "render_plain_table"]

_LINE = re.compile(r"[!-~]+(?: [!-~]+)*")
"""One line of cell text the plain renderer accepts: printable ASCII words, single spaces."""

_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS")
"""Variables that make rich treat the output as a terminal (or a notebook): rich decides."""


def console_width(environ: Mapping[str, str] | None = None, fds: Sequence[int] = (0, 1, 2)) -> int | None:
    """The width rich's ``Console`` would use writing to a non-terminal stdout, or ``None``
    when it is not sure: stdout is a terminal, a variable forces terminal handling, or
    ``COLUMNS`` is unset while one of the standard streams is a terminal (rich would use its
    size). ``COLUMNS`` (digits) wins; else 80."""
    env = os.environ if environ is None else environ
    if any(name in env for name in _TERMINAL_ENV) or "IPython" in sys.modules:
        return None
    if sys.stdout is None or _isatty(sys.stdout) or not (sys.stdout.encoding or "").lower().startswith("utf"):
        return None
    columns = env.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    if any(os.isatty(fd) for fd in fds):
        return None
    return 80


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:
        return False


def _shrink(widths: list[int], limit: int) -> list[int]:
    """Shrink the widest columns toward the next widest until the total is at most ``limit``."""
    widths = list(widths)
    while sum(widths) > limit:
        excess = sum(widths) - limit
        widest = max(widths)
        below = max((w for w in widths if w != widest), default=0)
        step = min(excess, widest - below)
        shares = sum(1 for w in widths if w == widest)
        remaining = excess
        for index, width in enumerate(widths):
            if width != widest:
                continue
            cut = min(step, round(remaining / shares))
            widths[index] -= cut
            remaining -= cut
            shares -= 1
    return widths


def _wrap(text: str, width: int) -> list[str]:
    """``text`` (lines of single-spaced words) wrapped to ``width``, long words cut."""
    out: list[str] = []
    for line in text.split("\n"):
        pieces: list[str] = []
        current = ""  # the line being built, with its trailing space
        words = [word + " " for word in line.split(" ")]
        words[-1] = words[-1][:-1]
        for word in words:
            bare = len(word.rstrip(" "))
            if width - len(current) >= bare:
                current += word
            elif bare > width:
                if current:
                    pieces.append(current)
                chunks = [word[i:i + width] for i in range(0, len(word), width)]
                pieces.extend(chunks[:-1])
                current = chunks[-1]
            else:
                pieces.append(current)
                current = word
        pieces.append(current)
        out.extend(piece.rstrip(" ") for piece in pieces)
    return out


def render_plain_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                       width: int, *, markup_free: Sequence[bool], ellipsis: Sequence[bool],
                       after: Sequence[str] = ()) -> str | None:
    """The table (and the ``after`` lines) exactly as rich prints them, or ``None``.

    Args:
        title: the left-justified title above the table.
        headers: the column headers (plain strings, as rich would parse them).
        rows: the cell texts, one sequence per row, lines separated by ``\\n``.
        width: the console width (:func:`console_width`).
        markup_free: per column, whether its cells were passed to rich as ``Text`` (``True``)
            rather than strings, which rich parses for markup and emoji codes.
        ellipsis: per column, whether rich would cut long words with an ellipsis there
            instead of folding them; such a column must not need to shrink.
        after: lines printed after the table, each as one rich ``print``.

    Returns:
        The text to write, ending with a newline; ``None`` when rich could render any of it
        differently (the caller then prints with rich).
    """
    count = len(headers)
    cells = [list(headers), *[list(row) for row in rows]]
    if not rows or width < 4 * count + 1 or any(len(row) != count for row in cells):
        return None
    for index, row in enumerate(cells):
        for column, text in enumerate(row):
            if not all(_LINE.fullmatch(line) for line in text.split("\n")):
                return None
            if (index == 0 or not markup_free[column]) and ("[" in text or ":" in text):
                return None
    if not all(_LINE.fullmatch(line) for line in (title, *after)) or any(len(line) > width for line in after):
        return None
    limit = width - (count + 1)
    natural = [max(len(line) for row in cells for line in row[column].split("\n")) + 2 for column in range(count)]
    clamped = [min(n, limit) for n in natural]  # no column is measured wider than the console
    widths = clamped if sum(clamped) <= limit else _shrink(clamped, limit)
    if min(widths) < 3 or any(e and w < n for e, w, n in zip(ellipsis, widths, natural, strict=True)):
        return None
    table_width = sum(widths) + count + 1
    if len(title) > table_width:
        return None
    out = [title.ljust(table_width), "┏" + "┳".join("━" * w for w in widths) + "┓"]
    for index, row in enumerate(cells):
        wrapped = [_wrap(text, w - 2) for text, w in zip(row, widths, strict=True)]
        height = max(len(lines) for lines in wrapped)
        # Body cells sit at the top of their row, header cells at the bottom.
        aligned = [lines + [""] * (height - len(lines)) if index else [""] * (height - len(lines)) + lines
                   for lines in wrapped]
        edge = "┃" if index == 0 else "│"
        for line in range(height):
            parts = [" " + lines[line].ljust(w - 2) + " " for lines, w in zip(aligned, widths, strict=True)]
            out.append(edge + edge.join(parts) + edge)
        if index == 0:
            out.append("┡" + "╇".join("━" * w for w in widths) + "┩")
    out.append("└" + "┴".join("─" * w for w in widths) + "┘")
    out.extend(after)
    return "\n".join(out) + "\n"
