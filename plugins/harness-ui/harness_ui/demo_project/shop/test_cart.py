"""Tests of shop.cart (standard-library unittest: run ``python3 -m unittest -v``)."""

from __future__ import annotations

import unittest

from .cart import average_price, total


class CartTest(unittest.TestCase):
    def test_total(self) -> None:
        self.assertEqual(total([1, 2, 3]), 6)

    def test_average_price(self) -> None:
        self.assertEqual(average_price([1, 2, 3]), 2)

    def test_average_of_an_empty_cart(self) -> None:
        with self.assertRaises(ValueError):
            average_price([])


if __name__ == "__main__":
    unittest.main()
