"""One wording for unknown names (options, settings, fields), with a "did you mean" hint.

Every place that refuses a name it does not know (``define_harness_tool`` options, adapter
settings, MCP server fields) builds its message here, so users see the same shape
everywhere::

    codex(): unknown setting 'modle' (did you mean 'model'?); known settings: api_key, ...
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["describe_unknown_names"]


def describe_unknown_names(
    owner: str, kind: str, unknown: Iterable[str], known: Iterable[str]
) -> str:
    """The message for names ``owner`` does not know.

    Args:
        owner: who refuses them, as the user wrote it (``"codex()"``, ``"tool 'grep'"``).
        kind: what a name is, singular (``"setting"``, ``"option"``, ``"field"``).
        unknown: the names given that are not known (at least one; order kept, duplicates
            dropped).
        known: every accepted name.

    Returns:
        ``"<owner>: unknown <kind> 'x' (did you mean 'y'?); known <kind>s: a, b"``: the
        closest known name (``difflib`` ratio >= 0.6) follows each unknown one that has
        one, and the known names are listed sorted.
    """
    choices = sorted(set(known))
    described = []
    for name in dict.fromkeys(unknown):
        close = difflib.get_close_matches(name, choices, n=1)
        described.append(f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name))
    plural = "s" if len(described) > 1 else ""
    return f"{owner}: unknown {kind}{plural} {', '.join(described)}; known {kind}s: {', '.join(choices)}"
