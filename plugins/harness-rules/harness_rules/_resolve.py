"""Resolving a path the way the operating system would for the process that opens it.

:func:`resolve` follows symlinks component by component, like :func:`os.path.realpath`,
with two differences that matter for a policy judging *another* process's file access:

* ``/proc/self`` and ``/proc/thread-self`` name the process that opens the path, not the
  policy: ``/proc/self/cwd`` resolves to that process's working directory (given by the
  caller: the workspace root, or the directory a shell command ``cd``-ed to), and
  ``/proc/self/root`` to ``/``. Every other entry below them (``fd/N``, ``exe``...) is
  left unresolved and reported as not understood.
* it stops at the first missing component (what follows is kept as written, ``..``
  folded lexically, as the kernel would never get there), and returns what it learnt
  about the final entry (exists, directory), so callers need no second ``stat``.

``..`` after a symlink steps out of the link's *target*, as the kernel does. At most 40
links are followed (the kernel's limit); a longer chain is reported as not understood.

:func:`case_insensitive` tells whether a directory lives on a case-insensitive file
system (macOS and Windows defaults), where rules must match regardless of case.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from typing import Final

import attrs

__all__ = ["LOOP", "Memo", "Resolved", "case_insensitive", "resolve"]

_MAX_LINKS: Final = 40
LOOP: Final = "more than 40 symbolic links to follow"
"""The :attr:`Resolved.unknown` of a link chain too long to follow (a loop: the kernel
fails to open it with ``ELOOP``)."""
_SELF: Final = frozenset({"/proc/self", "/proc/thread-self"})
_OTHER: Final = re.compile(r"/proc/\d+(?:/task/\d+)?/(?!(?:cwd|root)\Z)[^/]+\Z")
"""An entry of another process's ``/proc`` directory other than ``cwd`` and ``root``
(``fd/N``, ``map_files``, ``environ``...): its links are not paths the kernel walks (a file
held open, even deleted or replaced since, is opened as it is)."""


@attrs.frozen
class Resolved:
    """The outcome of :func:`resolve`.

    Attributes:
        path: the absolute path with every symlink resolved (normalized, no trailing ``/``).
        exists: the final entry exists.
        is_dir: the final entry is a directory (symlinks followed).
        unknown: why the path could not be resolved faithfully (a ``/proc/self`` entry
            other than ``cwd``/``root``, too many links), or ``None``.
    """

    path: str
    exists: bool
    is_dir: bool
    unknown: str | None = None


Memo = dict[str, "os.stat_result | None"]
"""``lstat`` results of one decision, by path (``None``: it failed)."""


def resolve(path: str, cwd: str, anchors: Sequence[tuple[str, str]] = (), memo: Memo | None = None) -> Resolved:
    """Resolve the absolute ``path`` (``.``/``..`` not yet folded) as the OS would.

    Args:
        path: an absolute path as the process would pass it to ``open``.
        cwd: the working directory of that process (``/proc/self/cwd``).
        anchors: ``(directory, resolved directory)`` pairs already resolved (the
            workspace root, the home directory): a path below one starts from there,
            saving a ``lstat`` per component of the anchor.
        memo: ``lstat`` results already obtained for this decision (shared prefixes of
            several paths are looked up once); filled in as components are looked up.

    Returns:
        The :class:`Resolved` result; never raises for a missing or unreadable path.
    """
    resolved = ""  # "" stands for "/"
    for lit, real in anchors:
        if path.startswith(lit) and path[len(lit) : len(lit) + 1] == "/" and lit != "/":
            resolved, path = real.rstrip("/"), path[len(lit) :]
            break
    pending = path.split("/")
    pending.reverse()
    links = 0
    missing = False
    note: str | None = None  # a /proc/<pid> entry: followed, and reported as not understood
    mode: int | None = None  # of the entry `resolved` names, when known
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            resolved = resolved.rpartition("/")[0]
            mode = None
            continue
        candidate = resolved + "/" + part
        if missing:
            resolved = candidate
            continue
        if note is None and candidate.startswith("/proc/") and _OTHER.match(candidate):
            note = f"`{candidate}` names the state of another process (a file it holds open may be one no path names)"
        if candidate in _SELF:
            nxt = pending.pop() if pending else ""
            if nxt == "cwd":
                target = cwd
            elif nxt == "root":
                resolved, mode = "", None
                continue
            else:
                return Resolved(_join(candidate, nxt, pending), False, False,
                                f"`{candidate}/{nxt}` names the running process's own state")
        else:
            if memo is not None and candidate in memo:
                found = memo[candidate]
            else:
                try:
                    found = os.lstat(candidate)
                except (OSError, ValueError):
                    found = None
                if memo is not None:
                    memo[candidate] = found
            if found is None:
                missing = True
                resolved = candidate
                continue
            st = found
            if not stat.S_ISLNK(st.st_mode):
                resolved, mode = candidate, st.st_mode
                continue
            try:
                target = os.readlink(candidate)
            except OSError:
                missing = True
                resolved = candidate
                continue
        links += 1
        if links > _MAX_LINKS:
            return Resolved(path, False, False, LOOP)
        if target.startswith("/"):
            resolved = ""
        mode = None
        parts = target.split("/")
        parts.reverse()
        pending.extend(parts)
    final = resolved or "/"
    if missing:
        return Resolved(final, False, False, note)
    if mode is None:
        try:
            mode = os.stat(final).st_mode
        except (OSError, ValueError):
            return Resolved(final, False, False, note)
    return Resolved(final, True, stat.S_ISDIR(mode), note)


def _join(candidate: str, nxt: str, pending: list[str]) -> str:
    rest = [p for p in reversed(pending) if p]
    return "/".join([candidate, nxt, *rest]) if nxt else candidate


def case_insensitive(directory: str) -> bool:
    """True when ``directory`` is on a case-insensitive file system (found by looking its
    last lettered component up with the case swapped)."""
    head, _, name = directory.rstrip("/").rpartition("/")
    while name and name.lower() == name.upper():
        head, _, name = head.rpartition("/")
    if not name:
        return False
    swapped = (head + "/" + name.swapcase()) + directory.rstrip("/")[len(head) + 1 + len(name):]
    try:
        return os.path.samestat(os.stat(directory), os.stat(swapped))
    except OSError:
        return False
