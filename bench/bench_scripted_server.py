"""Benchmark: one scripted model request's round trip (issue 17: no Nagle stall).

An :class:`harness_core.testing.ScriptedModelServer` on 127.0.0.1 serves a script of
``--requests`` text turns; an ``httpx.Client`` (one kept-alive connection) posts a
non-streaming and then a streaming OpenAI Chat Completions request per turn. Reported: the
median wall time per round trip (a round trip waits on the network stack, so wall time is the
figure; the 42 ms Nagle stall would show as ≥ 40 ms) and the process CPU time per request
(client and server threads together, ``time.process_time``). Goal: ≤ 3 ms median.

    uv run python -m bench.bench_scripted_server [--requests N]
"""

from __future__ import annotations

import argparse
import time

import httpx

from bench._rows import Row, format_table, median
from harness_core.testing import ScriptedModelServer

__all__ = ["measure", "run"]

GOAL_MS = 3.0


def measure(requests: int, stream: bool) -> tuple[float, float]:
    """(median wall ms per round trip, CPU ms per request) over ``requests`` scripted turns."""
    script = [f"answer {i}" for i in range(requests + 1)]
    walls: list[float] = []
    with ScriptedModelServer(script) as server, httpx.Client(base_url=server.openai_base_url, timeout=60) as client:
        body = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
        client.post("/chat/completions", json=body).raise_for_status()  # connect + warm up
        cpu_start = time.process_time()
        for _ in range(requests):
            start = time.perf_counter()
            response = client.post("/chat/completions", json=body)
            response.read()
            walls.append(time.perf_counter() - start)
            response.raise_for_status()
        cpu = time.process_time() - cpu_start
    return median(walls) * 1000, cpu / requests * 1000


def run(quick: bool = False, requests: int | None = None) -> list[Row]:
    """Rows for non-streaming and streaming round trips (wall medians, CPU per request)."""
    count = requests or (100 if quick else 500)
    rows = []
    for stream in (False, True):
        label = "stream" if stream else "json"
        wall, cpu = measure(count, stream)
        rows.append(Row(f"scripted round trip ({label})", GOAL_MS, wall, "ms", "wall"))
        rows.append(Row(f"scripted round trip ({label}) CPU", GOAL_MS, cpu, "ms", "cpu"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    print(format_table(run(requests=args.requests)))


if __name__ == "__main__":
    main()
