"""A background task that outlives the call that started it.

A Claude Code runtime is read by one long-lived task per CLI process, started by
``AdapterSession.prompt`` and stopped by ``abort`` / ``destroy``, which may run in other
tasks. An anyio task group cannot span those calls (its cancel scope is bound to the task
that entered it), so, like ``claude-agent-sdk`` itself, we spawn a detached task on the
running event loop. ``claude-agent-sdk`` supports asyncio and trio; so does this.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import sniffio

__all__ = ["DetachedTask", "spawn_detached"]


class DetachedTask:
    """Handle of a detached task: cancel it from any task, wait for it to end."""

    def __init__(self) -> None:
        self._done = anyio.Event()
        self._cancel: Callable[[], object] | None = None

    def bind(self, cancel: Callable[[], object]) -> None:
        """Give the handle the function that cancels the running task (called once, at spawn)."""
        self._cancel = cancel

    def finished(self) -> None:
        """Mark the task as finished (called by the task itself as it ends)."""
        self._done.set()

    @property
    def done(self) -> bool:
        """True once the task has finished (normally, by error or cancelled)."""
        return self._done.is_set()

    def cancel(self) -> None:
        """Ask the task to stop; safe from any task and after it finished."""
        if self._cancel is not None and not self.done:
            self._cancel()

    async def wait(self) -> None:
        """Wait until the task has finished."""
        await self._done.wait()


def spawn_detached(coro: Coroutine[Any, Any, None]) -> DetachedTask:
    """Run ``coro`` as a detached task of the current event loop.

    Exceptions inside ``coro`` are the coroutine's own business: wrap it so it reports
    them; one escaping is swallowed after the task ends (asyncio would only log it).

    Raises:
        RuntimeError: the running async library is neither asyncio nor trio.
    """
    handle = DetachedTask()

    async def runner() -> None:
        try:
            await coro
        except BaseException:
            pass
        finally:
            handle.finished()

    library = sniffio.current_async_library()
    if library == "asyncio":
        import asyncio

        task = asyncio.get_running_loop().create_task(runner())
        handle.bind(task.cancel)
        return handle
    if library == "trio":  # pragma: no cover - exercised only under trio
        trio: Any = importlib.import_module("trio")
        scope = trio.CancelScope()

        async def scoped() -> None:
            with scope:
                await runner()

        trio.lowlevel.spawn_system_task(scoped)
        handle.bind(scope.cancel)
        return handle
    coro.close()
    raise RuntimeError(f"harness-claude-code needs asyncio or trio, not {library!r}")
