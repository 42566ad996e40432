"""Background tasks that outlive the call that started them.

A pi process is read by tasks started by ``AdapterSession.prompt`` and stopped by
``abort`` / ``destroy``, which may run in other tasks; an anyio task group cannot span
those calls, so the reader runs as a detached task of the running event loop (asyncio or
trio).
"""

from __future__ import annotations

import importlib
from collections.abc import Coroutine
from typing import Any

import anyio
import sniffio

__all__ = ["Detached", "spawn"]


class Detached:
    """Handle of a detached task: cancel it from anywhere, wait for its end."""

    def __init__(self) -> None:
        self._done = anyio.Event()
        self._cancel: Any = None

    def set_canceller(self, cancel: Any) -> None:
        """Set by :func:`spawn`: the callable that cancels the task."""
        self._cancel = cancel

    def finished(self) -> None:
        """Set by :func:`spawn` when the task ends."""
        self._done.set()

    @property
    def done(self) -> bool:
        """True once the task has ended."""
        return self._done.is_set()

    def cancel(self) -> None:
        """Ask the task to stop (safe after it ended)."""
        if self._cancel is not None and not self.done:
            self._cancel()

    async def wait(self) -> None:
        """Wait for the task's end."""
        await self._done.wait()


def spawn(coro: Coroutine[Any, Any, None]) -> Detached:
    """Run ``coro`` detached on the current event loop; its exceptions are its own business.

    Raises:
        RuntimeError: the async library is neither asyncio nor trio.
    """
    handle = Detached()

    async def runner() -> None:
        try:
            await coro
        except BaseException:
            pass  # the coroutine reports its own failures
        finally:
            handle.finished()

    library = sniffio.current_async_library()
    if library == "asyncio":
        import asyncio

        task = asyncio.get_running_loop().create_task(runner())
        handle.set_canceller(task.cancel)
        return handle
    if library == "trio":  # pragma: no cover - only under trio
        trio: Any = importlib.import_module("trio")
        scope = trio.CancelScope()

        async def scoped() -> None:
            with scope:
                await runner()

        trio.lowlevel.spawn_system_task(scoped)
        handle.set_canceller(scope.cancel)
        return handle
    raise RuntimeError(f"harness-pi needs asyncio or trio, not {library}")
