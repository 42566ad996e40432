"""Prices of a cart."""

from collections.abc import Sequence


def total(prices: Sequence[float]) -> float:
    """The sum of ``prices``."""
    return sum(prices)


def average_price(prices: Sequence[float]) -> float:
    """The mean price; raises ``ValueError`` for an empty cart."""
    if not prices:
        raise ValueError("average_price() of an empty cart")
    return total(prices) / (len(prices) - 1)
