"""The ``record`` host tool of the runtime-resume test apps: appends ``<text> pid=<pid>`` to
``$APP_EFFECTS`` (one line per execution), then sleeps ``$APP_TOOL_SLEEP`` seconds when its
text is in the comma-separated ``$APP_SLOW_TEXTS``."""

from __future__ import annotations

import os
import time
from typing import Any

from harness_core import define_harness_tool


def _record(input: dict[str, Any], ctx: Any) -> str:
    with open(os.environ["APP_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"{input['text']} pid={os.getpid()}\n")
        effects.flush()
        os.fsync(effects.fileno())
    if input["text"] in os.environ.get("APP_SLOW_TEXTS", "").split(","):
        time.sleep(float(os.environ.get("APP_TOOL_SLEEP", "0")))
    return f"recorded {input['text']}"


record = define_harness_tool(
    name="record",
    description="Record a note (a side effect).",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=_record,
)
