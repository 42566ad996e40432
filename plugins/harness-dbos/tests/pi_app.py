"""The durable pi application of the runtime-resume tests (see cc_app.py): ``APP_MODEL_URL``
(the scripted server, Chat Completions wire), ``APP_EFFECTS``, ``APP_APPROVAL``,
``APP_SLOW_TEXTS`` / ``APP_TOOL_SLEEP``."""

from __future__ import annotations

import os

import harness_dbos
from harness_pi import pi
from record_tool import record

from harness_core import HarnessAgent


def build_agent() -> HarnessAgent:
    """pi on the scripted server, with the ``record`` host tool."""
    adapter = pi(model="fake-model", base_url=os.environ["APP_MODEL_URL"], api="openai-completions", max_retries=1,
                 retry_delay_ms=50)
    return HarnessAgent(harness=adapter, tools=[record], include_plugin_tools=False, permission_mode="allow-all",
                        tool_approval={"record": os.environ.get("APP_APPROVAL", "not-applicable")})


durable = harness_dbos.DurableAgent(build_agent(), name="pi")
