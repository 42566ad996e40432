"""Re-reading a rules file that may be in the middle of being rewritten.

A file rewritten in place (``open(path, "w")``, ``Path.write_text``, most scripts) is empty
between its truncation and the write; an editor saving by renaming leaves no file for a
moment; a write caught half-way may end on a line boundary and still parse. Read at that
moment, the file holds fewer rules than it will a millisecond later, and the policy would
decide (for up to a reload interval) without its deny and ask rules.

A file written in place for the first time may also be caught with its ``allow`` lines
written and its ``deny`` lines not yet.

So a re-read that *loses* deny or ask rules, *gains* allow rules, or finds the file gone, is
believed only once it reads the same across a short pause (:data:`SETTLE` seconds) with the
same inode, size and times, and those times are :data:`QUIET` seconds old: a rewrite caught
half-way has moved on by then (a writer stalled longer between truncating and writing is
not seen). A file still changing after :data:`LIMIT` seconds is an error (the call is
denied, the next decision reads it again). A re-read that only adds deny or ask rules (or
drops allow rules) is taken at once, as is a first read (there is nothing to compare it
with). Writing rules files atomically (a new file renamed over the old one) never shows a
partial file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Final

from ._errors import RulesFileError
from ._files import RuleLayer, load_rules_file
from ._syntax import Action

__all__ = ["LIMIT", "QUIET", "SETTLE", "settled_load"]

SETTLE: Final = 0.05
"""Seconds to wait before reading again a rules file that lost deny or ask rules."""
QUIET: Final = 0.5
"""Seconds a weakened rules file must have been left untouched (by its times) to be believed."""
LIMIT: Final = 3.0
"""Seconds of reading a weakened rules file that keeps changing before it is an error."""


def _restrictive(layer: RuleLayer) -> frozenset[tuple[str, str]]:
    return frozenset((r.action.value, r.text) for r in layer.rules if r.action is not Action.ALLOW)


def _allows(layer: RuleLayer) -> frozenset[str]:
    return frozenset(r.text for r in layer.rules if r.action is Action.ALLOW)


def _weaker(previous: RuleLayer, loaded: RuleLayer) -> bool:
    """``loaded`` lost a deny or ask rule of ``previous``, or gained an allow rule."""
    return not _restrictive(previous) <= _restrictive(loaded) or not _allows(loaded) <= _allows(previous)


def _stat(path: str | os.PathLike[str]) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _changed_at(path: str | os.PathLike[str]) -> float:
    """When the file (or, when it is gone, its directory: an unlink or rename) last changed."""
    for target in (path, os.path.dirname(os.fspath(path)) or "."):
        try:
            st = os.stat(target)
        except OSError:
            continue
        return max(st.st_mtime, st.st_ctime)
    return 0.0


def _signature(layer: RuleLayer) -> tuple[object, ...]:
    return (layer.exists, tuple((r.action.value, r.text, r.origin.line) for r in layer.rules))


def settled_load(path: str | os.PathLike[str], layer: str, previous: RuleLayer | None, *, missing_ok: bool,
                 settle: float = SETTLE, quiet: float = QUIET, limit: float = LIMIT,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.time,
                 ) -> RuleLayer:
    """Load a rules file that was loaded before as ``previous`` (``None``: never).

    Args:
        settle: seconds between reads of a file that weakened.
        quiet: how long it must have been left untouched before its weaker rules are believed.
        limit: seconds of reading a file that keeps changing before it is an error.
        sleep / clock: ``time.sleep`` and ``time.time`` (tests pass their own).

    Returns:
        The layer, once it is known not to be a rewrite caught half-way (see the module docs).

    Raises:
        RulesFileError: the file is invalid, or it lost deny or ask rules (or gained allow
            rules) and kept changing for ``limit`` seconds.
    """
    before = _stat(path)
    loaded = load_rules_file(path, layer, missing_ok=missing_ok)
    if previous is None or not _weaker(previous, loaded):
        return loaded
    deadline = clock() + limit
    while True:
        sleep(settle)
        now = _stat(path)
        again = load_rules_file(path, layer, missing_ok=missing_ok)
        if not _weaker(previous, again):
            return again  # the rewrite finished with the rules still there
        if (before == now == _stat(path) and _signature(again) == _signature(loaded)
                and clock() - _changed_at(path) >= quiet):
            return loaded  # left untouched for a while, and read the same: the rules really changed
        before, loaded = now, again
        if clock() > deadline:
            break
    raise RulesFileError(
        str(path), None,
        f"the rules file lost deny or ask rules (or gained allow rules) and was not left untouched for "
        f"{quiet:g} s within {limit:g} s; write it atomically (a new file renamed over it)",
    )
