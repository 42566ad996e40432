"""Bounded memos for the engine's pure functions, kept from filling with one-off keys.

Most of what a decision computes from text alone (a command line's plan, what one command's
words match, whether a path string matches a pattern) is remembered across decisions, since
an agent repeats itself. A key met only once, like most first-seen command lines, would
still take a slot: it evicts useful entries and leaves objects behind that Python's cyclic
garbage collector then visits on every collection (measured: 27 objects kept per
first-seen compound decision, and the collector at 8.6% of the instructions,
``bench/bench_rules.py``'s first-seen mix). A :class:`RepeatMemo` therefore keeps a value only the
second time its key is computed: the first time it remembers just the key's hash, an
untracked integer.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["RepeatMemo"]

K = TypeVar("K")
V = TypeVar("V")


class RepeatMemo(dict[K, V]):
    """A memo of at most ``limit`` entries that stores a value the second time it is offered.

    Read it as a dict (``memo.get(key)``, ``key in memo``: the built-in lookups, no Python
    call); store through :meth:`remember`. Values must be what a pure function of the key
    gives, so a hash collision (a key stored on its first offer) changes nothing but timing.
    When full it is cleared, like every memo here (no eviction order to maintain).

    Args:
        limit: the most entries kept (the most hashes remembered is four times that).
    """

    __slots__ = ("_limit", "_seen")

    def __init__(self, limit: int) -> None:
        super().__init__()
        if limit < 1:
            raise ValueError(f"a memo needs a positive limit, got {limit}")
        self._limit = limit
        self._seen: set[int] = set()

    def remember(self, key: K, value: V) -> V:
        """Offer ``value`` for ``key``; kept when ``key`` was offered before. Returns ``value``."""
        seen = self._seen
        mark = hash(key)
        if mark not in seen:
            if len(seen) >= 4 * self._limit:
                seen.clear()
            seen.add(mark)
            return value
        if len(self) >= self._limit:
            self.clear()
        self[key] = value
        return value

    def forget(self) -> None:
        """Drop every entry and every remembered hash (what :meth:`dict.clear` keeps)."""
        self.clear()
        self._seen.clear()
