"""The event iterator of a built-in turn.

:class:`EventStream` wraps the turn's loop (an async generator of stream parts and
control events) as the iterator :meth:`~harness_builtin.turn.BuiltinTurn.events` returns:
it ends after the first :class:`~harness_core.adapter.TurnEnd`, and after the turn was
aborted and the loop closed, reading it yields ``TurnEnd(finish_reason="aborted")`` once.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

from harness_core import TurnEnd, Usage

from .signals import TurnSignals

__all__ = ["EventStream"]


class EventStream:
    """The turn's event iterator (see the module docs).

    Args:
        loop: the turn's loop, not started yet.
        signals: the turn's signals (whether it was aborted).
        usage: the turn's usage so far, for the aborted ``TurnEnd``.

    Attributes:
        running: a read of the loop is in progress (it cannot be closed now).
    """

    def __init__(self, loop: AsyncGenerator[object, None], signals: TurnSignals, usage: Callable[[], Usage]) -> None:
        self._gen = loop
        self._signals = signals
        self._usage = usage
        self._finished = False
        self._closed = False
        self.running = False

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> object:
        if self._finished:
            raise StopAsyncIteration
        if self._signals.aborted and not self.running:
            await self.close()
        if self._closed:
            self._finished = True
            if self._signals.aborted:
                return TurnEnd(finish_reason="aborted", usage=self._usage())
            raise StopAsyncIteration
        self.running = True
        try:
            event = await self._gen.__anext__()
        except StopAsyncIteration:
            self._finished = True
            raise
        finally:
            self.running = False
        if isinstance(event, TurnEnd):
            self._finished = True
            await self._gen.aclose()
        return event

    async def close(self) -> None:
        """Close the loop (its ``finally`` blocks run) unless a read is in progress."""
        if not self.running and not self._closed:
            self._closed = True
            await self._gen.aclose()
