"""The row every bench returns to ``python -m bench``: one goal, one measured figure.

``Row(name, goal, measured, unit, clock)``; ``ratio = measured / goal`` (≤ 1.0 meets the goal).
``clock`` says what was timed: ``"cpu"`` (process CPU time, robust on a loaded machine),
``"wall"`` or ``"ratio"`` (a dimensionless figure).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Row", "format_table", "median"]


class Row(NamedTuple):
    """One line of the bench table."""

    name: str
    goal: float | None
    measured: float
    unit: str
    clock: str

    @property
    def ratio(self) -> float:
        """``measured / goal`` (≤ 1.0 meets the goal); ``nan`` for a row without a goal."""
        return self.measured / self.goal if self.goal else float("nan")


def median(values: Sequence[float]) -> float:
    """The median of ``values`` (at least one)."""
    return statistics.median(values)


def format_table(rows: Sequence[Row]) -> str:
    """``bench | goal | measured | ratio | clock | ok`` as aligned text."""
    lines = [f"{'bench':<44} {'goal':>12} {'measured':>12} {'ratio':>7}  {'clock':<5} ok"]
    for row in rows:
        ok = "-" if row.goal is None else "yes" if row.ratio <= 1.0 else "NO"
        ratio = "-" if row.goal is None else f"{row.ratio:.2f}"
        goal = f"{'-':>9}" if row.goal is None else f"{row.goal:>9.4g}"
        lines.append(
            f"{row.name:<44} {goal} {row.unit:<2} {row.measured:>9.4g} {row.unit:<2}"
            f" {ratio:>7}  {row.clock:<5} {ok}"
        )
    return "\n".join(lines)
