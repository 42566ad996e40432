"""Abort and wake-up signals of one built-in turn.

Every await of a turn that may block (a model stream read, a tool batch, a wait for
answers) runs through :meth:`TurnSignals.guard`, in its own cancel scope that
:meth:`TurnSignals.abort` cancels. No cancel scope is held across a ``yield``, so the
turn's event iterator may be read from different tasks one after the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["Aborted", "TurnSignals"]

_T = TypeVar("_T")


class Aborted(Exception):
    """Raised inside the turn when :meth:`TurnSignals.abort` cancelled a blocking await."""


class TurnSignals:
    """Whether the turn was aborted, the cancel scope of its current blocking await, and
    the event that wakes a turn waiting for answers."""

    def __init__(self) -> None:
        self._aborted = False
        self._scope: anyio.CancelScope | None = None
        self._wake = anyio.Event()

    @property
    def aborted(self) -> bool:
        """Whether the turn was aborted."""
        return self._aborted

    def abort(self) -> None:
        """Mark the turn aborted, cancel its blocking await and wake it."""
        self._aborted = True
        if self._scope is not None:
            self._scope.cancel()
        self._wake.set()

    def wake(self) -> None:
        """Wake a turn waiting in :meth:`wait_until` (an answer arrived)."""
        self._wake.set()

    async def guard(self, awaitable: Awaitable[_T]) -> _T:
        """Await ``awaitable`` in a cancel scope :meth:`abort` can cancel.

        Raises:
            Aborted: the turn was aborted before or while it ran.
        """
        with anyio.CancelScope() as scope:
            self._scope = scope
            if self._aborted:
                scope.cancel()
            try:
                return await awaitable
            finally:
                self._scope = None
        self._aborted = True
        raise Aborted

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, checking it after every :meth:`wake`.

        Raises:
            Aborted: the turn was aborted while it waited.
        """
        while not predicate():
            self._wake = anyio.Event()
            if predicate():
                return
            await self.guard(self._wake.wait())
            if self._aborted:
                raise Aborted
