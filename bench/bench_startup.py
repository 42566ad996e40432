"""Benchmark: start-up of ``harness plugins`` and ``import harness_core`` (issue 17).

Each command runs in a fresh interpreter with bytecode caching ON (``PYTHONDONTWRITEBYTECODE``
removed from the child's environment; one warm-up run writes the cache first), every plugin of
this repository installed, and no terminal (stdin and stdout are /dev/null, stderr is
captured; in a terminal ``harness plugins`` draws its table with rich, which the row
"harness plugins, rich table" measures).
Reported: the median over ``--runs`` of the child's CPU time
(user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``) and of its wall time, plus the
ratio of each to ``python -c "import pydantic"`` measured in the same run, so a loaded machine
shows up in the baseline too. Goals: ``harness plugins`` ≤ 300 ms, ``import harness_core`` ≤ 150 ms.

    uv run python -m bench.bench_startup [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

from bench._rows import Row, format_table, median

__all__ = ["COMMANDS", "measure", "run"]

BASELINE = "import pydantic"

COMMANDS: dict[str, tuple[list[str], float | None]] = {
    BASELINE: (["-c", "import pydantic"], None),
    "import harness_core": (["-c", "import harness_core"], 0.150),
    "harness plugins": (["-m", "harness_core.cli", "plugins"], 0.300),
    "harness plugins, rich table": (["-m", "harness_core.cli", "plugins"], None),
}
"""Name -> (interpreter arguments, goal in seconds or ``None`` for no goal)."""

EXTRA_ENV: dict[str, dict[str, str]] = {"harness plugins, rich table": {"TTY_COMPATIBLE": "0"}}
"""Per command: variables added to the child's environment. ``TTY_COMPATIBLE=0`` keeps rich's
non-terminal output but makes ``harness plugins`` print through rich, as in a terminal."""


def _env(name: str = "") -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(EXTRA_ENV.get(name, {}))
    return env


def _once(args: list[str], name: str = "") -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child run of ``python ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # No terminal at all (as in scripts and CI): stdin and stdout from/to /dev/null, stderr
    # captured. With a terminal, `harness plugins` prints through rich instead (EXTRA_ENV).
    done = subprocess.run([sys.executable, *args], env=_env(name), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"python {' '.join(args)} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(runs: int) -> dict[str, tuple[float, float]]:
    """Name -> (median CPU s, median wall s); the commands interleave, so load hits all alike."""
    for name, (args, _goal) in COMMANDS.items():
        _once(args, name)  # warm the bytecode cache
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, (args, _goal) in COMMANDS.items():
            samples[name].append(_once(args, name))
    return {
        name: (median([s[0] for s in values]), median([s[1] for s in values]))
        for name, values in samples.items()
    }


def run(quick: bool = False, runs: int | None = None) -> list[Row]:
    """The start-up rows (CPU medians); ``quick`` uses 5 runs, else 11."""
    results = measure(runs or (5 if quick else 11))
    base_cpu, _base_wall = results[BASELINE]
    rows = [Row("startup: import pydantic (baseline)", None, base_cpu * 1000, "ms", "cpu")]
    for name, (_args, goal) in COMMANDS.items():
        if name == BASELINE:
            continue
        cpu, wall = results[name]
        target = None if goal is None else goal * 1000
        rows.append(Row(f"startup: {name}", target, cpu * 1000, "ms", "cpu"))
        rows.append(Row(f"startup: {name} (wall)", target, wall * 1000, "ms", "wall"))
        rows.append(Row(f"startup: {name} / import pydantic", None, cpu / base_cpu, "x", "ratio"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    print(format_table(run(runs=args.runs)))


if __name__ == "__main__":
    main()
