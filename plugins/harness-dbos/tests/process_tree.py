"""Killing a worker process together with every process it started, at once, as a lost
machine would: the runtimes some adapters start in their own process group or session
(Codex's app-server) would otherwise notice their parent's death and shut down cleanly."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """``pid``'s live descendants, read from ``/proc`` (parents before children)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(process: subprocess.Popen[str]) -> None:
    """Freeze ``process`` and its descendants (SIGSTOP), then SIGKILL them all."""
    tree = [process.pid, *descendants(process.pid)]
    for pid in tree:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP)
    tree += [pid for pid in descendants(process.pid) if pid not in tree]
    for pid in tree:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait(timeout=30)
