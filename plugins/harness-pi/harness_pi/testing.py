"""Helpers for tests that drive pi through the adapter.

:data:`PI_MISSING_REASON` is ``None`` when ``pi`` is on ``PATH``, else why a test must skip;
:func:`eventually` polls outside state (files, processes); :func:`alive` tells whether a
process id still runs (Linux ``/proc``).
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable
from pathlib import Path

import anyio

__all__ = ["PI_MISSING_REASON", "alive", "eventually"]

PI_MISSING_REASON: str | None = None if shutil.which("pi") else "no `pi` on PATH (npm @earendil-works/pi-coding-agent)"
"""``None`` when pi is installed, else the skip reason."""


def alive(pid: int) -> bool:
    """True while ``pid`` runs (not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


async def eventually(predicate: Callable[[], bool], *, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``predicate`` every 50 ms until it holds.

    Raises:
        TimeoutError: it did not hold within ``timeout`` seconds (the message names ``what``).
    """
    with anyio.move_on_after(timeout):
        for _ in itertools.count():
            if predicate():
                return
            await anyio.sleep(0.05)
    raise TimeoutError(f"{what} did not hold within {timeout} s")
