"""Benchmark: one scripted model request's round trip (issue 17: no Nagle stall).

An :class:`harness_core.testing.ScriptedModelServer` on 127.0.0.1, in a child process (so
client and server do not share one GIL: in one process the 5 ms GIL switch interval shows up in
streamed round trips), serves a one-turn script; an ``httpx.Client`` (one kept-alive
connection) posts non-streaming, then streaming OpenAI Chat Completions requests. Reported: the
median wall time per round trip (a round trip waits on the network stack, so wall time is the
figure; the 42 ms Nagle stall would show as ≥ 40 ms) and the client's CPU time per request
(``time.process_time``). Goal: ≤ 3 ms median.

    uv run python -m bench.bench_scripted_server [--requests N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import httpx

from bench._rows import Row, format_table, median

__all__ = ["measure", "run"]

GOAL_MS = 3.0


_SERVE = """
import sys
from harness_core.testing import ScriptedModelServer
with ScriptedModelServer(["answer"]) as server:
    print(server.openai_base_url, flush=True)
    sys.stdin.read()
"""
"""The child: serve a one-turn script (a request with no assistant message in its history gets
that turn each time; the server picks turns by history), print the OpenAI base URL, stop when stdin closes."""


def measure(requests: int, stream: bool) -> tuple[float, float]:
    """(median wall ms per round trip, client CPU ms per request) over ``requests`` scripted turns."""
    walls: list[float] = []
    with subprocess.Popen([sys.executable, "-c", _SERVE, str(requests + 1)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stdin is not None
        base_url = child.stdout.readline().strip()
        try:
            cpu = _requests(base_url, requests, stream, walls)
        finally:
            child.stdin.close()
    return median(walls) * 1000, cpu / requests * 1000


def _requests(base_url: str, requests: int, stream: bool, walls: list[float]) -> float:
    """Post ``requests`` round trips, appending each wall time to ``walls``; returns client CPU s."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        body = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
        client.post("/chat/completions", json=body).raise_for_status()  # connect + warm up
        cpu_start = time.process_time()
        for _ in range(requests):
            start = time.perf_counter()
            response = client.post("/chat/completions", json=body)
            response.read()
            walls.append(time.perf_counter() - start)
            response.raise_for_status()
            if "chat.completion" not in response.text:  # a completion, not an error body
                raise RuntimeError(f"unexpected scripted answer: {response.text[:200]!r}")
        return time.process_time() - cpu_start


def run(quick: bool = False, requests: int | None = None) -> list[Row]:
    """Rows for non-streaming and streaming round trips (wall medians, CPU per request)."""
    count = requests or (100 if quick else 500)
    rows = []
    for stream in (False, True):
        label = "stream" if stream else "json"
        wall, cpu = measure(count, stream)
        rows.append(Row(f"scripted round trip ({label})", GOAL_MS, wall, "ms", "wall"))
        rows.append(Row(f"scripted round trip ({label}) client CPU", GOAL_MS, cpu, "ms", "cpu"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    print(format_table(run(requests=args.requests)))


if __name__ == "__main__":
    main()
