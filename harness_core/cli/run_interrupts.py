"""Ctrl-C during ``harness run``: the first interrupt aborts the turn, the second ends the run."""

from __future__ import annotations

import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import anyio.abc

__all__ = ["ABORT_REASON", "Interrupts"]

ABORT_REASON: Final = "interrupted (Ctrl-C)"
_STUCK_GRACE: Final = 0.5
"""Seconds a run may take to end after a second Ctrl-C before the process exits anyway."""


class Interrupts:
    """Ctrl-C during a run: the first aborts the turn cleanly, the second ends the run at once.

    The first one aborts the streaming result (the stream then ends with an ``abort``
    part), or, when nothing streams (an approval prompt, a session starting), cancels
    :attr:`turn_scope`; the run then abandons the paused turn itself. The second one also
    cancels :attr:`run_scope`, which holds the clean-up, so nothing more is waited for;
    when the run still has not ended :data:`_STUCK_GRACE` seconds later (a runtime stuck
    in its own shielded abort), :attr:`exit_now` ends the process. SIGINT is caught
    through the event loop (``anyio.open_signal_receiver``), so no ``KeyboardInterrupt``
    is ever raised inside the loop.
    """

    def __init__(self) -> None:
        self.count = 0
        self.streaming: Any = None  # the StreamResult being read, if any
        self.exit_now: Callable[[], Awaitable[None]] | None = None
        self._scopes: tuple[anyio.CancelScope, anyio.CancelScope] | None = None

    def arm(self) -> tuple[anyio.CancelScope, anyio.CancelScope]:
        """Create the turn and run scopes (inside the event loop); returns them."""
        self._scopes = (anyio.CancelScope(), anyio.CancelScope())
        if self.count:
            self.interrupt_scopes()
        return self._scopes

    @property
    def turn_scope(self) -> anyio.CancelScope:
        assert self._scopes is not None, "arm() first"
        return self._scopes[0]

    @property
    def run_scope(self) -> anyio.CancelScope:
        assert self._scopes is not None, "arm() first"
        return self._scopes[1]

    @property
    def interrupted(self) -> bool:
        return self.count > 0

    def interrupt(self) -> None:
        self.count += 1
        if self.count == 1 and self.streaming is not None:
            self.streaming.abort(ABORT_REASON)
            return
        self.interrupt_scopes()

    def interrupt_scopes(self) -> None:
        if self._scopes is None:
            return
        self._scopes[0].cancel()
        if self.count > 1:
            self._scopes[1].cancel()

    async def watch(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with anyio.create_task_group() as tasks:
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                task_status.started()
                async for _ in signals:
                    self.interrupt()
                    if self.count == 2:
                        tasks.start_soon(self._exit_if_stuck)

    async def _exit_if_stuck(self) -> None:
        # A run that honours the cancellation ends first, and cancels this task with it.
        await anyio.sleep(_STUCK_GRACE)
        if self.exit_now is not None:
            await self.exit_now()
        os._exit(130)  # pragma: no cover - exit_now exits itself
