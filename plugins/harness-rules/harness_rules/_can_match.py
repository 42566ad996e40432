"""Refusing path patterns that no file can ever match (a load error, not a silent no-op)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ._errors import RuleSyntaxError

__all__ = ["check_can_match"]

_NAME_MAX: Final = 255
_PATH_MAX: Final = 4096
_CLASS_CANDIDATES: Final = ("xa0A_.-" + "".join(chr(c) for c in range(32, 127)) + "".join(chr(c) for c in range(1, 32))
                             + "\u00e9\u00ff\u0100\u4e00\U0001f600\U0010ffff").replace("/", "")
"""Characters tried for a class: every character a file name may hold has a candidate of
its kind (control, ASCII, Latin-1, BMP, astral); only ``/`` and NUL never occur."""


def check_can_match(segments: Sequence[str], regex: re.Pattern[str], spec: str) -> None:
    """Refuse a pattern no file name can match: a segment longer than a file name may be,
    a character class only ``/`` could satisfy, a pattern longer than a path may be. An
    example path is built from the pattern (``*`` empty, ``?`` and classes one fitting
    character) and must match the compiled regex."""
    example: list[str] = []
    for seg in segments:
        if seg == "**":
            continue
        out: list[str] = []
        i = 0
        while i < len(seg):
            ch = seg[i]
            if ch == "*":
                pass
            elif ch == "?":
                out.append("x")
            elif ch == "\\" and i + 1 < len(seg):
                i += 1
                out.append(seg[i])
            elif ch == "[":
                end = seg.find("]", i + 2 if seg[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
                if end < 0:
                    out.append("[")
                else:
                    body = seg[i + 1 : end]
                    body = "^" + body[1:] if body.startswith("!") else body
                    try:
                        klass = re.compile("[" + body + "]")
                    except re.error:
                        return  # leave it to pathspec's own reading
                    pick = next((c for c in _CLASS_CANDIDATES if klass.fullmatch(c)), None)
                    if pick is None:
                        raise RuleSyntaxError(f"path pattern {spec!r} can never match: the character class "
                                              f"[{seg[i + 1:end]}] matches no character a file name can hold")
                    out.append(pick)
                    i = end
            else:
                out.append(ch)
            i += 1
        name = "".join(out)
        if len(name.encode()) > _NAME_MAX:
            raise RuleSyntaxError(f"path pattern {spec!r} can never match: a file name is at most "
                                  f"{_NAME_MAX} bytes, and {seg[:40]!r}... needs {len(name.encode())}")
        example.append(name or "x")
    text = "/".join(example) or "x"
    if len(text.encode()) > _PATH_MAX:
        raise RuleSyntaxError(f"path pattern {spec!r} can never match: paths are at most {_PATH_MAX} bytes")
    if not any(regex.match(candidate) for candidate in (text, text + "/", text + "/x", "x/" + text)):
        raise RuleSyntaxError(f"path pattern {spec!r} can never match a path (no file name fits it)")

