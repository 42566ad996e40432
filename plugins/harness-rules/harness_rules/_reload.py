"""Re-reading a rules file that may be in the middle of being rewritten.

A file rewritten in place (``open(path, "w")``, ``Path.write_text``, most scripts) is empty
between its truncation and the write; an editor saving by renaming leaves no file for a
moment; a write caught half-way may end on a line boundary and still parse. Read at that
moment, the file holds fewer rules than it will a millisecond later, and the policy would
decide (for up to a reload interval) without its deny and ask rules.

So a re-read that *loses* deny or ask rules - or finds the file gone - is believed only
once the file is left untouched (same inode, size, modification and change times) for a
short pause (:data:`SETTLE` seconds) and reads the same again: a rewrite caught half-way
has moved on by then. A file still changing after
:data:`TRIES` pauses is an error (the call is denied, the next decision reads it again).
A re-read that keeps or adds restrictive rules is taken at once, as is a first read (there
is nothing to lose yet). Writing rules files atomically (a new file renamed over the old
one) never shows a partial file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Final

from ._errors import RulesFileError
from ._files import RuleLayer, load_rules_file
from ._syntax import Action

__all__ = ["SETTLE", "TRIES", "settled_load"]

SETTLE: Final = 0.05
"""Seconds to wait before reading again a rules file that lost deny or ask rules."""
TRIES: Final = 5
"""Pauses before a rules file that keeps changing is an error."""


def _restrictive(layer: RuleLayer) -> frozenset[tuple[str, str]]:
    return frozenset((r.action.value, r.text) for r in layer.rules if r.action is not Action.ALLOW)


def _stat(path: str | os.PathLike[str]) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _signature(layer: RuleLayer) -> tuple[object, ...]:
    return (layer.exists, tuple((r.action.value, r.text, r.origin.line) for r in layer.rules))


def settled_load(path: str | os.PathLike[str], layer: str, previous: RuleLayer | None, *, missing_ok: bool,
                 settle: float = SETTLE, tries: int = TRIES,
                 sleep: Callable[[float], None] = time.sleep) -> RuleLayer:
    """Load a rules file that was loaded before as ``previous`` (``None``: never).

    Returns:
        The layer, once it is known not to be a rewrite caught half-way (see the module docs).

    Raises:
        RulesFileError: the file is invalid, or it lost deny or ask rules and kept changing
            over ``tries`` pauses of ``settle`` seconds.
    """
    before = _stat(path)
    loaded = load_rules_file(path, layer, missing_ok=missing_ok)
    if previous is None or _restrictive(previous) <= _restrictive(loaded):
        return loaded
    for _ in range(tries):
        sleep(settle)
        now = _stat(path)
        again = load_rules_file(path, layer, missing_ok=missing_ok)
        if _restrictive(previous) <= _restrictive(again):
            return again  # the rewrite finished with the rules still there
        if before == now == _stat(path) and _signature(again) == _signature(loaded):
            return loaded  # untouched for a pause, and read the same: the rules really were removed
        before, loaded = now, again
    raise RulesFileError(
        str(path), None,
        f"the rules file lost deny or ask rules and kept changing over {tries} reads {settle:g} s apart; "
        "write it atomically (a new file renamed over it)",
    )
