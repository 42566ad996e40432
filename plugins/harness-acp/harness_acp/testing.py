"""Helpers for tests that drive ACP agents through the adapter.

:func:`eventually` polls outside state (files, processes) until a condition holds;
:func:`processes_with` lists the pids whose command line contains a marker (to prove a
tool command is gone); :func:`group_gone` tells whether a process group has ended.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio

__all__ = ["eventually", "group_gone", "processes_with"]


async def eventually(predicate: Callable[[], bool], *, timeout: float = 15.0, what: str = "condition") -> None:
    """Poll ``predicate`` every 50 ms until it holds.

    Raises:
        TimeoutError: it did not hold within ``timeout`` seconds (the message names ``what``).
    """
    with anyio.move_on_after(timeout):
        while True:
            if predicate():
                return
            await anyio.sleep(0.05)
    raise TimeoutError(f"{what} did not hold within {timeout} s")


def processes_with(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``marker`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def group_gone(pgid: int) -> bool:
    """True when no process of group ``pgid`` is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
