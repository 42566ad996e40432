"""Process-tree helpers over ``/proc`` (Linux), so no runtime process outlives its session.

Claude Code runs shell commands as children of the CLI; killing the CLI alone would orphan
them. :func:`kill_tree` freezes the tree with ``SIGSTOP`` while collecting it (so nothing
forks behind our back), then kills every member with ``SIGKILL``. On systems without
``/proc`` only the root process is signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

__all__ = ["alive", "child_with_env", "descendants", "kill_tree"]

_PROC = Path("/proc")


def _parent_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return children
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (ppid) follows the parenthesized command name, which may contain spaces.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) < 2:
            continue
        try:
            parent = int(fields[1])
        except ValueError:
            continue
        children.setdefault(parent, []).append(int(entry.name))
    return children


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (children first, then theirs), from ``/proc``."""
    children = _parent_map()
    found: list[int] = []
    queue = list(children.get(pid, ()))
    while queue:
        child = queue.pop(0)
        if child in found:
            continue
        found.append(child)
        queue.extend(children.get(child, ()))
    return found


def child_with_env(name: str, value: str) -> int | None:
    """The pid of this process's child whose environment has ``name=value``, else ``None``.

    Reads ``/proc/<pid>/environ`` (the environment the child started with); ``None`` on
    systems without ``/proc``.
    """
    wanted = f"{name}={value}".encode()
    for child in _parent_map().get(os.getpid(), ()):
        try:
            environ = (_PROC / str(child) / "environ").read_bytes()
        except OSError:
            continue
        if wanted in environ.split(b"\0"):
            return child
    return None


def alive(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not _PROC.exists()
    state = stat.rsplit(")", 1)[-1].split()[:1]
    return state != ["Z"] and state != ["X"]


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill_tree(pid: int) -> list[int]:
    """Kill ``pid`` and all its descendants; returns the pids signalled.

    The root is stopped first, then each generation of children is stopped as it is
    found, and finally every collected process gets ``SIGKILL``. Processes that already
    exited are skipped silently. The caller still reaps its own child (``wait``).
    """
    _signal(pid, signal.SIGSTOP)
    tree = [pid]
    seen: set[int] = {pid}
    # Re-scan until no new members appear: a child may have forked before it was stopped.
    for _ in range(5):
        found = [p for p in descendants(pid) if p not in seen]
        if not found:
            break
        for child in found:
            _signal(child, signal.SIGSTOP)
            seen.add(child)
            tree.append(child)
    for member in reversed(tree):
        _signal(member, signal.SIGKILL)
    return tree
