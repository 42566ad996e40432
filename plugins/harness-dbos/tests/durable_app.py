"""The durable application the crash tests run in worker processes.

Settings come from the environment (set by the tests): ``APP_MODEL_URL`` (the scripted
model server, OpenAI wire), ``APP_EFFECTS`` (the side-effect file each host-tool execution
appends a line to), ``APP_TOOL_SLEEP`` (seconds the ``record`` tool sleeps after its side
effect when its text is in the comma-separated ``APP_SLOW_TEXTS``), ``APP_GATE`` (with
``APP_GATED_TEXTS``: after its side effect, ``record`` waits until that file exists, at most
120 s), ``APP_APPROVAL`` (``user-approval`` makes ``record`` ask first).
"""

from __future__ import annotations

import os
import time
from typing import Any

import harness_dbos
from harness_builtin import create_model_client

from harness_core import HarnessAgent, define_harness_tool


def _record(input: dict[str, Any], ctx: Any) -> str:
    with open(os.environ["APP_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"{input['text']} pid={os.getpid()}\n")
        effects.flush()
        os.fsync(effects.fileno())
    if input["text"] in os.environ.get("APP_SLOW_TEXTS", "").split(","):
        time.sleep(float(os.environ.get("APP_TOOL_SLEEP", "0")))
    if input["text"] in os.environ.get("APP_GATED_TEXTS", "").split(","):
        deadline = time.monotonic() + 120
        while not os.path.exists(os.environ["APP_GATE"]) and time.monotonic() < deadline:
            time.sleep(0.05)
    return f"recorded {input['text']}"


record = define_harness_tool(
    name="record",
    description="Record a note (a side effect).",
    input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=_record,
)


def build_agent() -> HarnessAgent:
    """The agent: the built-in harness on the scripted server, the ``record`` host tool."""
    client = create_model_client("openai:scripted", base_url=os.environ["APP_MODEL_URL"], api_key="test",
                                 max_retries=0, timeout=120.0)
    approval = os.environ.get("APP_APPROVAL", "not-applicable")
    return HarnessAgent(
        harness="builtin",
        harness_options={"model": harness_dbos.durable_model(client)},
        tools=[record],
        include_plugin_tools=False,
        tool_approval={"record": approval},
    )


durable = harness_dbos.DurableAgent(build_agent(), name="test")
