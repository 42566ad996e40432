"""What a call path needs from the result slice it runs in (passed in, by composition)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import attrs

from harness_core.parts.models import Part

__all__ = ["CallScheduler", "SliceServices"]


class CallScheduler:
    """Read-only calls run in parallel; any other call runs alone.

    ``async with scheduler.slot(read_only=...)`` waits for a slot: a read-only slot is shared
    with other read-only calls, an exclusive one waits until no other call runs (and holds
    back new ones). Slots are released even when the call is cancelled.
    """

    def __init__(self) -> None:
        self._cond = anyio.Condition()
        self._readers = 0
        self._writer = False

    @asynccontextmanager
    async def slot(self, *, read_only: bool) -> AsyncIterator[None]:
        """Hold a shared (``read_only=True``) or exclusive slot for the body's duration."""
        async with self._cond:
            while self._writer or (not read_only and self._readers):
                await self._cond.wait()
            if read_only:
                self._readers += 1
            else:
                self._writer = True
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self._cond:
                    if read_only:
                        self._readers -= 1
                    else:
                        self._writer = False
                    self._cond.notify_all()


@attrs.frozen(kw_only=True)
class SliceServices:
    """The result slice's services for the call paths.

    Attributes:
        emit: sends a part the core produced (through the slice's stream invariants).
        spawn: runs a coroutine function concurrently inside the slice (host executions).
        fail: ends the slice with an ``error`` part (``on_error="fail"``, a rejected result).
        scheduler: read-only calls in parallel, others exclusive.
        tools_context: the tools context map in effect for this slice.
    """

    emit: Callable[[Part], None]
    spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], None]
    fail: Callable[[str], None]
    scheduler: CallScheduler
    tools_context: Mapping[str, Any]
