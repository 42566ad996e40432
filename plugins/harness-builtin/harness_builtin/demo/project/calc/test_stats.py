"""Tests of calc.stats (standard-library unittest: run ``python3 -m unittest -v``)."""

from __future__ import annotations

import unittest

from .stats import mean, total


class StatsTest(unittest.TestCase):
    def test_total(self) -> None:
        self.assertEqual(total([1, 2, 3]), 6)

    def test_mean(self) -> None:
        self.assertEqual(mean([1, 2, 3]), 2)

    def test_mean_of_nothing(self) -> None:
        with self.assertRaises(ValueError):
            mean([])


if __name__ == "__main__":
    unittest.main()
