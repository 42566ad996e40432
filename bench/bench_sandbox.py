"""The cost of confining a command: ``run_command(["true"])`` under ``BwrapSandbox`` vs
``LocalSandbox``.

Run: ``uv run python bench/bench_sandbox.py [--runs N]``

Both sandboxes work on the same throwaway workspace and run the same argument list
(no shell) through the same runner (``LocalSandbox.run_command``: process group,
timeout, output capture); the difference is the ``bwrap`` wrapper (new mount, PID, IPC,
UTS, cgroup and network namespaces, the bind mounts, dropped capabilities). Prints the
median and quartiles in milliseconds of each, the ratio of the medians and the added
milliseconds per command, for ``network="none"`` and ``network="host"``. Interleaved
(one of each per round) so machine load affects both alike. Needs ``bwrap``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import anyio
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import LocalSandbox, Sandbox


async def _time(sandbox: Sandbox) -> float:
    started = time.perf_counter()
    result = await sandbox.run_command(["true"], timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    if result.exit_code != 0:
        raise SystemExit(f"{sandbox!r}: `true` failed: {result}")
    return elapsed


def _summary(name: str, samples: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(samples, n=4)
    return f"{name:<28} median {median:7.2f} ms   (quartiles {q1:.2f} .. {q3:.2f})"


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as root:
        sandboxes: dict[str, Sandbox] = {
            "LocalSandbox": LocalSandbox(root),
            "BwrapSandbox network=none": BwrapSandbox(root, network="none"),
            "BwrapSandbox network=host": BwrapSandbox(root, network="host"),
        }
        samples: dict[str, list[float]] = {name: [] for name in sandboxes}
        for sandbox in sandboxes.values():  # warm up
            await _time(sandbox)
        for _ in range(runs):
            for name, sandbox in sandboxes.items():
                samples[name].append(await _time(sandbox))
        for sandbox in sandboxes.values():
            await sandbox.stop()
    local = statistics.median(samples["LocalSandbox"])
    print(f"run_command(['true']), {runs} runs each, interleaved")
    for name, values in samples.items():
        print(_summary(name, values))
    for name in ("BwrapSandbox network=none", "BwrapSandbox network=host"):
        median = statistics.median(samples[name])
        print(f"{name}: {median / local:.2f}x LocalSandbox, +{median - local:.2f} ms per command (goal <= 3 ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    anyio.run(main, args.runs)
