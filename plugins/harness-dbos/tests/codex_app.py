"""The durable Codex application of the runtime-resume tests (see cc_app.py): ``APP_MODEL_URL``
(the scripted server, Responses wire), ``APP_HOME`` (the shared home; ``CODEX_HOME`` is
``<home>/.codex``), ``APP_EFFECTS``, ``APP_APPROVAL``, ``APP_SLOW_TEXTS`` / ``APP_TOOL_SLEEP``."""

from __future__ import annotations

import os
from pathlib import Path

import harness_dbos
from harness_codex import codex
from harness_codex.conformance import NO_RETRIES, TEST_MODEL
from record_tool import record

from harness_core import HarnessAgent


def build_agent() -> HarnessAgent:
    """Codex on the scripted server, with the ``record`` host tool."""
    home = Path(os.environ["APP_HOME"])
    adapter = codex(model=TEST_MODEL, base_url=os.environ["APP_MODEL_URL"], api_key="test-key", home=home,
                    codex_home=home / ".codex", config=dict(NO_RETRIES))
    return HarnessAgent(harness=adapter, tools=[record], include_plugin_tools=False, permission_mode="allow-all",
                        tool_approval={"record": os.environ.get("APP_APPROVAL", "not-applicable")})


durable = harness_dbos.DurableAgent(build_agent(), name="codex")
