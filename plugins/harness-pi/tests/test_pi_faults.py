"""Issue 16 fault guarantee on pi: the pi process killed during a model request, while a host
tool runs and while an approval waits gives a prompt ``runtime-crashed`` error, no
``KeyError``, and the session answers the next prompt (pi starts again on the same session
file). The scenarios are the core's :class:`RuntimeFaultSuite`."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from harness_core.testing.conformance import RuntimeFaultSuite

from .conftest import PiAgentFactory


@pytest.mark.requires_runtime("pi")
class TestPiFaults(RuntimeFaultSuite):
    @pytest.fixture
    def make_fault_agent(self, pi_agent: PiAgentFactory) -> PiAgentFactory:
        return pi_agent

    async def kill_runtime(self, session: Any) -> None:
        pid = session.adapter_session.pi_pid  # pi itself (a node program), not a wrapper
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
