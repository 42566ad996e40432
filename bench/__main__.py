"""``uv run python -m bench``: run every bench with a ``run(quick)`` function at small sizes and
print one table, goal | measured | ratio (``measured / goal``, ≤ 1.0 meets it) | clock.

``--full`` uses each bench's default sizes; ``--only NAME`` (repeatable) picks benches by module
name. The older benches (``bench_claude_code``, ``bench_codex``, ``bench_pi``, ``bench_rules``,
``bench_validation``) need real runtimes or print their own
reports, and are run on their own (see each module's docstring).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from bench._rows import Row, format_table

BENCHES: tuple[str, ...] = (
    "bench_startup", "bench_scripted_server", "bench_linear_cost", "bench_builtin_overhead", "bench_sessions",
)
"""Modules of :mod:`bench` that return :class:`~bench._rows.Row` lists from ``run(quick)``."""


def main(argv: list[str] | None = None) -> int:
    """Run the benches; exit status 0 (goals missed are reported in the table, not as errors)."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="each bench's default (larger) sizes")
    parser.add_argument("--only", action="append", default=[], help="bench module name")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name in args.only or BENCHES:
        start = time.perf_counter()
        module = importlib.import_module(f"bench.{name}")
        rows.extend(module.run(quick=not args.full))
        print(f"# {name}: {time.perf_counter() - start:.1f} s wall", file=sys.stderr)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
