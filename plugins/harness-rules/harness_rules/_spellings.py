"""Every spelling of a path a call touches: lexical and with symlinks resolved as the OS would."""

from __future__ import annotations

import os
import re
from typing import Final

import attrs

from ._bases import Bases, normalize
from ._resolve import Memo, resolve

__all__ = ["Spelling", "spellings"]


@attrs.frozen
class Spelling:
    """One way of writing a path a call touches.

    Attributes:
        path: normalized absolute path.
        is_dir: the path is an existing directory (symlinks followed).
        resolved: this is the symlink-resolved spelling.
        unknown: why the OS's resolution of the path is not known here (a ``/proc/self``
            entry other than ``cwd``/``root``), or ``None``.
    """

    path: str
    is_dir: bool
    resolved: bool
    unknown: str | None = None


_PROC_CWD: Final = re.compile(r"^/proc/(?:self|thread-self)/cwd(?=/|$)")


def spellings(raw: str, cwd: str, home: str, bases: Bases | None = None, memo: Memo | None = None) -> tuple[Spelling, ...]:
    """Every spelling of the path ``raw`` as a tool running in ``cwd`` would see it.

    ``~`` and ``~/x`` are expanded to ``home``; the literal ``cwd/~/x`` is kept as well when
    an entry named ``~`` exists there. Relative paths join ``cwd``. The resolved spelling
    follows symlinks as the OS would for a process running in ``cwd``
    (:func:`~harness_rules._resolve.resolve`: ``/proc/self/cwd`` is ``cwd``); the lexical
    spelling has ``/proc/self/cwd`` replaced by ``cwd`` too.
    """
    candidates: list[str] = []
    if raw == "~" or raw.startswith("~/"):
        candidates.append(home + raw[1:])
        if os.path.lexists(os.path.join(cwd, "~")):
            candidates.append(os.path.join(cwd, raw))
    elif raw in ("~+", "~-") or raw.startswith(("~+/", "~-/")):  # $PWD, $OLDPWD
        literal = os.path.join(cwd, raw)
        if raw[1] == "+":
            candidates.append(cwd + raw[2:])
        else:
            unknown = "`~-` is the previous working directory (`$OLDPWD`), only known at run time"
            return (Spelling(normalize(literal), False, False, unknown),)
        if os.path.lexists(os.path.join(cwd, raw[:2])):  # a file named `~+` (a quoted word)
            candidates.append(literal)
    elif raw.startswith("~"):
        expanded = os.path.expanduser(raw)
        candidates.append(expanded if expanded != raw else os.path.join(cwd, raw))
    elif not raw:
        candidates.append(cwd)
    elif raw[0] == "/":
        candidates.append(raw)
    else:  # os.path.join(cwd, raw), without its generality
        candidates.append(cwd + raw if cwd.endswith("/") else cwd + "/" + raw)
    seen: dict[str, Spelling] = {}
    anchors = () if bases is None else bases.anchors
    for cand in candidates:
        lit = normalize(cand)
        found = resolve(cand, cwd, anchors, memo)
        seen[lit] = Spelling(lit, found.is_dir if found.path == lit else os.path.isdir(lit), False, found.unknown)
        if lit.startswith("/proc/") and _PROC_CWD.match(lit):
            local = normalize(_PROC_CWD.sub(lambda _: cwd, lit, count=1))
            seen.setdefault(local, Spelling(local, found.is_dir, False))
        if found.path not in seen:
            seen[found.path] = Spelling(found.path, found.is_dir, True, found.unknown)
    return tuple(seen.values())

