"""The fault guarantee on ACP agents: codex-acp and pi-acp SIGKILLed (their whole process
group) during a model request, while a host tool runs and while an approval waits give a
prompt ``runtime-crashed`` error, no ``KeyError``, and the session answers the next prompt
(the adapter starts the agent again). The scenarios are the core's :class:`RuntimeFaultSuite`."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import ScriptedModelServer
from harness_core.testing.conformance import RuntimeFaultSuite


class _AcpFaults(RuntimeFaultSuite):
    adapter_fixture = ""
    host_tool_prefix = "mcp__harness__"

    def server_options(self) -> dict[str, Any]:
        return {"formats": ["responses"]} if self.adapter_fixture == "codex_acp" else {}

    def session_options(self, workspace: Path) -> dict[str, Any]:
        return {"sandbox": LocalSandbox(workspace)}

    @pytest.fixture
    def make_fault_agent(self, request: pytest.FixtureRequest) -> Callable[..., HarnessAgent]:
        make_adapter = request.getfixturevalue(self.adapter_fixture)

        def build(server: ScriptedModelServer, **agent_kwargs: Any) -> HarnessAgent:
            return HarnessAgent(harness=make_adapter(server), include_plugin_tools=False, **agent_kwargs)

        return build

    async def kill_runtime(self, session: Any) -> None:
        pid = session.adapter_session.agent_pid
        assert pid is not None
        os.killpg(pid, signal.SIGKILL)


@pytest.mark.requires_runtime("codex-acp", "acp")
class TestCodexAcpFaults(_AcpFaults):
    adapter_fixture = "codex_acp"


@pytest.mark.requires_runtime("pi-acp", "pi", "acp")
class TestPiAcpFaults(_AcpFaults):
    adapter_fixture = "pi_acp"
