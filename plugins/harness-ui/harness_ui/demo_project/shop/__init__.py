"""A tiny shop: prices of a cart."""
