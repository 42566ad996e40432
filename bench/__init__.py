"""The benchmarks of this repository; ``uv run python -m bench`` runs the quick set (issue 17).

Benchmarks are never part of the test suite's timing assertions.
"""
