"""Benchmark: what serving a harness to ``useChat`` costs on top of the agent.

Two figures, in one process:

* **converter**: µs per part for :class:`harness_ui.UIStreamConverter` plus SSE framing
  (``encode_chunk``) over a typical mix (text deltas, a built-in call and result, a host
  call and result, step and finish parts);
* **request**: ms per chat request through the chat app (``httpx.ASGITransport``, no
  socket): parse the body, take the chat from SQLite, open the session (``resume_from``),
  stream the slice as SSE, stop the session and store it; against the same turn consumed
  straight from ``agent.stream`` on a live session. The runtime is the in-process
  ``ScriptedAdapter`` (no model, no subprocess), so the figures are the framework's.

Run: ``uv run python bench/bench_ui_stream.py`` (``--parts``, ``--turns``, ``--repeat``).
It prints the medians and the request/agent ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
from harness_ui import SqliteChatStore, UIStreamConverter, create_chat_app, encode_chunk

from harness_core import (
    FinishPart,
    FinishStepPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolResultPart,
)
from harness_core.testing import CallHost, EchoResults, Say, ScriptedAdapter


def part_mix(count: int) -> list[Any]:
    parts: list[Any] = [StartPart(), StartStepPart(), TextStartPart(id="t")]
    parts += [TextDeltaPart(id="t", text="word ") for _ in range(count)]
    parts += [TextEndPart(id="t"),
              ToolCallPart(tool_call_id="b1", tool_name="bash", input={"command": "ls"}, provider_executed=True),
              ToolResultPart(tool_call_id="b1", tool_name="bash", output="a\nb\n", provider_executed=True),
              ToolCallPart(tool_call_id="h1", tool_name="note", input={"text": "x"}),
              ToolResultPart(tool_call_id="h1", tool_name="note", output="kept x"),
              FinishStepPart(), FinishPart()]
    return parts


def bench_converter(count: int) -> float:
    parts = part_mix(count)
    started = time.perf_counter()
    converter = UIStreamConverter(message_id="m")
    for part in parts:
        for chunk in converter.convert(part):
            encode_chunk(chunk)
    return (time.perf_counter() - started) / len(parts) * 1e6


def script(turns: int) -> list[Any]:
    return [[[Say("Looking at it."), CallHost("note", {"text": "x"})], [EchoResults("Done:")]] for _ in range(turns)]


async def bench_request(turns: int) -> tuple[float, float]:
    from harness_core import define_harness_tool

    note = define_harness_tool(name="note", description="Keep a note.", input={"type": "object"},
                               read_only=True, execute=lambda input, ctx: "kept")
    direct_agent = ScriptedAdapter(script(turns)).agent(tools=[note])
    started = time.perf_counter()
    async with await direct_agent.create_session() as session:
        for _ in range(turns):
            async for _part in direct_agent.stream(session=session, prompt="go").full_stream:
                pass
    direct = (time.perf_counter() - started) / turns * 1e3

    with tempfile.TemporaryDirectory() as tmp:
        app = create_chat_app(ScriptedAdapter(script(turns)).agent(tools=[note]),
                              store=SqliteChatStore(Path(tmp) / "chats.sqlite"))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
            messages: list[dict[str, Any]] = []
            started = time.perf_counter()
            for index in range(turns):
                messages.append({"id": f"u{index}", "role": "user", "parts": [{"type": "text", "text": "go"}]})
                response = await client.post("/api/chat", json={"id": "bench", "messages": messages})
                assert response.status_code == 200 and response.text.endswith("data: [DONE]\n\n")
            served = (time.perf_counter() - started) / turns * 1e3
    return direct, served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--parts", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    converter = [bench_converter(args.parts) for _ in range(args.repeat)]
    requests = [anyio.run(bench_request, args.turns) for _ in range(args.repeat)]
    direct = statistics.median(r[0] for r in requests)
    served = statistics.median(r[1] for r in requests)
    print(f"converter + SSE framing: {statistics.median(converter):.2f} µs per part (median of {args.repeat})")
    print(f"agent.stream on a live session: {direct:.2f} ms per turn")
    print(f"chat app request (SQLite resume + stream + stop + store): {served:.2f} ms per turn")
    print(f"ratio request / agent: {served / direct:.1f}x")


if __name__ == "__main__":
    main()
