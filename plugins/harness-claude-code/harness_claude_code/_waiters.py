"""Callbacks of Claude Code waiting for the host's answers.

Claude Code's permission callback waits for an approval (keyed by ``approval_id``) and the
in-process MCP server waits for a host tool result (keyed by the call id). A
:class:`Waiters` registry holds both kinds; the turn settles one when the host answers and
releases all of them (with a denial or an error result) when the turn ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

import anyio
import attrs

from ._state import ApprovalAnswer, ResultAnswer

__all__ = ["Waiter", "Waiters"]

A = TypeVar("A", ApprovalAnswer, ResultAnswer)


@attrs.define
class Waiter(Generic[A]):
    """One callback waiting for the host.

    Attributes:
        tool_use_id: the runtime's call id.
        answer: the first answer given, or ``None`` while waiting.
    """

    tool_use_id: str
    answer: A | None = None
    _event: anyio.Event = attrs.field(factory=anyio.Event, init=False)

    def settle(self, answer: A) -> None:
        """Give the answer (only the first one counts) and wake the callback."""
        if self.answer is None:
            self.answer = answer
        self._event.set()

    async def wait(self) -> A:
        """Wait for the answer.

        Raises:
            RuntimeError: woken without an answer (cannot happen through :meth:`settle`).
        """
        await self._event.wait()
        if self.answer is None:
            raise RuntimeError(f"call {self.tool_use_id!r} was released without an answer")
        return self.answer


class Waiters(Generic[A]):
    """Callbacks waiting for one kind of answer, by key (approval id or call id)."""

    def __init__(self) -> None:
        self._waiting: dict[str, Waiter[A]] = {}

    def add(self, key: str, tool_use_id: str) -> Waiter[A]:
        """Register a waiting callback under ``key``."""
        waiter: Waiter[A] = Waiter(tool_use_id)
        self._waiting[key] = waiter
        return waiter

    def get(self, key: str) -> Waiter[A] | None:
        """The callback waiting under ``key``, or ``None``."""
        return self._waiting.get(key)

    def discard(self, key: str) -> None:
        """Forget ``key`` (its callback returned)."""
        self._waiting.pop(key, None)

    def keys(self) -> list[str]:
        """The keys still waiting, sorted."""
        return sorted(self._waiting)

    def release_all(self, answer: A) -> None:
        """Answer every waiting callback with ``answer`` (nobody else will)."""
        for waiter in self._waiting.values():
            waiter.settle(answer)

    async def wait_all(self) -> None:
        """Wait until every registered callback has its answer, then forget them."""
        for waiter in list(self._waiting.values()):
            await waiter.wait()
        self._waiting.clear()

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def __iter__(self) -> Iterator[Waiter[A]]:
        return iter(list(self._waiting.values()))
