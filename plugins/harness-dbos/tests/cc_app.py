"""The durable Claude Code application the runtime-resume tests run in worker processes.

Settings come from the environment (set by the tests): ``APP_MODEL_URL`` (the scripted
model server, Anthropic wire), ``APP_HOME`` / ``APP_CONFIG_DIR`` (the CLI's isolated
``HOME`` and ``CLAUDE_CONFIG_DIR``, shared by every worker: the transcripts live there),
``APP_EFFECTS`` (the side-effect file each ``record`` execution appends a line to),
``APP_APPROVAL`` (``user-approval`` makes ``record`` ask first), ``APP_PERMISSION`` (the
permission mode, default ``allow-all``), ``APP_STATE_SECRET`` (the agent's ``state_secret``), ``APP_TOOL_SLEEP`` (seconds
``record`` sleeps after its side effect when its text is in the comma-separated
``APP_SLOW_TEXTS``).
"""

from __future__ import annotations

import os

import harness_dbos
from harness_claude_code import claude_code
from record_tool import record

from harness_core import HarnessAgent


def build_agent() -> HarnessAgent:
    """Claude Code on the scripted server, with the ``record`` host tool."""
    adapter = claude_code(base_url=os.environ["APP_MODEL_URL"], api_key="test-key", home=os.environ["APP_HOME"],
                          config_dir=os.environ["APP_CONFIG_DIR"], setting_sources=[],
                          env={"CLAUDE_CODE_MAX_RETRIES": "1"})
    return HarnessAgent(harness=adapter, tools=[record], include_plugin_tools=False, permission_mode=os.environ.get("APP_PERMISSION", "allow-all"),
                        tool_approval={"record": os.environ.get("APP_APPROVAL", "not-applicable")},
                        state_secret=os.environ.get("APP_STATE_SECRET") or None)


durable = harness_dbos.DurableAgent(build_agent(), name="cc")
