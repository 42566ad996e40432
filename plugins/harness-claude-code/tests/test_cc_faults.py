"""Issue 16 item 9 and the fault guarantee: the Claude Code CLI killed at any moment.

The core's :class:`RuntimeFaultSuite` kills the real CLI process (its pid from the adapter
session) while a model request is in flight, while a host tool runs, and while an approval
waits. Each time the stream gets a ``runtime-crashed`` error promptly (within a second of the
kill, not when the host tool finishes), no ``KeyError`` reaches the stream, and the session
answers the next prompt.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON, eventually

from harness_core import HarnessAgent
from harness_core.testing import ScriptedModelServer
from harness_core.testing.conformance import RuntimeFaultSuite

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")


@needs_cli
@pytest.mark.requires_runtime("claude-code")
class TestClaudeCodeFaults(RuntimeFaultSuite):
    host_tool_prefix = "mcp__harness__"

    def call_id(self, name: str) -> str:
        return f"toolu_{name}"

    @pytest.fixture
    def make_fault_agent(self, adapter_settings: Callable[..., dict[str, Any]]) -> Callable[..., HarnessAgent]:
        def build(server: ScriptedModelServer, **agent_kwargs: Any) -> HarnessAgent:
            return HarnessAgent(harness=claude_code(**adapter_settings(server)), **agent_kwargs)

        return build

    async def kill_runtime(self, session: Any) -> None:
        adapter_session: Any = session.adapter_session
        await eventually(lambda: bool(adapter_session.runtime_pids))
        os.kill(adapter_session.runtime_pids[0], signal.SIGKILL)
