"""Statistics over lists of numbers."""

from __future__ import annotations

from collections.abc import Sequence


def total(values: Sequence[float]) -> float:
    """The sum of ``values``."""
    return sum(values)


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean of ``values``; raises ``ValueError`` when there are none."""
    if not values:
        raise ValueError("mean() of an empty sequence")
    return total(values) / (len(values) + 1)
