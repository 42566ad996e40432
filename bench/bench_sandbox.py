"""The cost of confining a command: ``run_command(["true"])`` under ``BwrapSandbox`` vs
``LocalSandbox`` and a raw ``subprocess.run``.

Run: ``uv run python bench/bench_sandbox.py [--runs N]``

Every sandbox works on the same throwaway workspace and runs the same argument list (no
shell). ``BwrapSandbox`` sends it to its long-lived command server (one bubblewrap started
once per sandbox; the server inside spawns each command; see
:mod:`harness_sandbox_bwrap.server`); ``per-command bwrap`` is ``command_server=False``
(one ``bwrap`` started per command), for reference. Prints the median and quartiles in
milliseconds of each, and for each bwrap row the ratio of the medians and the added
milliseconds per command against ``LocalSandbox`` and against raw ``subprocess.run``.
Interleaved (one of each per round) so machine load affects all alike. Needs ``bwrap``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time

import anyio
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import LocalSandbox, Sandbox

_RAW = "raw subprocess.run"
_LOCAL = "LocalSandbox"
_BWRAP = ("BwrapSandbox network=none", "BwrapSandbox network=host", "per-command bwrap (none)")


async def _time(sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    if sandbox is None:
        code = subprocess.run(["true"], check=False).returncode  # noqa: ASYNC221 (the raw baseline)
    else:
        result = await sandbox.run_command(["true"], timeout=60)
        code = -1 if result.exit_code is None else result.exit_code
    elapsed = (time.perf_counter() - started) * 1000
    if code != 0:
        raise SystemExit(f"{sandbox!r}: `true` failed")
    return elapsed


def _summary(name: str, samples: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(samples, n=4)
    return f"{name:<28} median {median:7.2f} ms   (quartiles {q1:.2f} .. {q3:.2f})"


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as root:
        sandboxes: dict[str, Sandbox | None] = {
            _RAW: None,
            _LOCAL: LocalSandbox(root),
            _BWRAP[0]: BwrapSandbox(root, network="none"),
            _BWRAP[1]: BwrapSandbox(root, network="host"),
            _BWRAP[2]: BwrapSandbox(root, network="none", command_server=False),
        }
        samples: dict[str, list[float]] = {name: [] for name in sandboxes}
        for sandbox in sandboxes.values():  # warm up
            await _time(sandbox)
        for _ in range(runs):
            for name, sandbox in sandboxes.items():
                samples[name].append(await _time(sandbox))
        for sandbox in sandboxes.values():
            if sandbox is not None:
                await sandbox.stop()
    local, raw = statistics.median(samples[_LOCAL]), statistics.median(samples[_RAW])
    print(f"run_command(['true']), {runs} runs each, interleaved")
    for name, values in samples.items():
        print(_summary(name, values))
    for name in _BWRAP:
        median = statistics.median(samples[name])
        print(f"{name}: {median / local:.2f}x LocalSandbox ({median - local:+.2f} ms), "
              f"{median / raw:.2f}x raw ({median - raw:+.2f} ms) per command (goal <= +3 ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    anyio.run(main, args.runs)
