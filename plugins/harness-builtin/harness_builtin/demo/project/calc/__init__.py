"""calc: small statistics helpers (the harness demo project)."""

from .stats import mean, total

__all__ = ["mean", "total"]
