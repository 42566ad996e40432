"""Publishing a result slice's parts to the turn's DBOS stream.

Stream ``harness.parts`` of the turn workflow holds batches: each value is a list of
``{"index": n, "part": <part JSON>}`` (``index`` counts the turn's parts from 0, across
slices). One DBOS step per slice (``publish-parts``) writes them while the slice streams:
the step takes its place in the workflow before the slice starts, so the order of the
workflow's recorded operations never depends on how the harness's tasks interleave. A
slice published completely is never written again on a replay; a slice a crash
interrupted is written again from its first part, so a batch may repeat indices already
written: readers (:func:`read_parts`) skip every index they have seen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import attrs

from harness_core import StreamResult

from ._recorded import run_recorded_step

__all__ = ["PARTS_STREAM", "SliceEnd", "publish_slice", "read_parts"]

PARTS_STREAM = "harness.parts"
"""The DBOS stream key of a turn's parts."""


@attrs.frozen
class SliceEnd:
    """How a published slice ended: its part count and finish reason (``None`` when the
    slice ended without a ``finish`` part, e.g. with ``abort``)."""

    count: int
    finish_reason: str | None


async def publish_slice(result: StreamResult, first_index: int, interval: float = 0.05) -> SliceEnd:
    """Consume ``result`` (driving the turn) and publish its parts from ``first_index``,
    in batches at most every ``interval`` seconds (one stream write each; a part waits at
    most that long before readers see it).

    Must run inside the turn workflow, with no other workflow operation started between
    its call and the slice's first part.
    """
    from dbos import DBOS

    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    ended = asyncio.Event()  # the slice is over: the last batch goes out without waiting

    async def write() -> int:
        written, done = 0, False
        while not done:
            batch = [await queue.get()]
            if batch[0] is not None and interval > 0:
                with contextlib.suppress(asyncio.TimeoutError):  # gather what the slice streams meanwhile
                    await asyncio.wait_for(ended.wait(), interval)
            while not queue.empty():
                batch.append(queue.get_nowait())
            if batch[-1] is None:
                batch.pop()
                done = True
            if batch:
                await DBOS.write_stream_async(PARTS_STREAM, batch)
                written += len(batch)
        return written

    writer = asyncio.ensure_future(run_recorded_step("publish-parts", write))
    await asyncio.sleep(0)  # the step takes its operation id now, before the slice runs
    count = 0
    try:
        async for part in result.full_stream:
            queue.put_nowait({"index": first_index + count, "part": part.to_json()})
            count += 1
        finish = await result.finish_reason if count and result.parts[-1].type == "finish" else None
    finally:
        queue.put_nowait(None)
        ended.set()
        await writer
    return SliceEnd(count=count, finish_reason=finish)


async def read_parts(batches: AsyncIterator[Any], offset: int) -> AsyncIterator[dict[str, Any]]:
    """Parts (JSON) from the batches of a ``harness.parts`` stream, from part index
    ``offset`` on, each index once, in order."""
    expected = offset
    async for batch in batches:
        for item in batch:
            if item["index"] == expected:
                expected += 1
                yield item["part"]
