"""Issue 16 fault guarantee on Codex: the app-server killed during a model request, while a
host tool runs and while an approval waits gives a prompt ``runtime-crashed`` error, no
``KeyError``, and the session answers the next prompt (a new app-server resumes the thread).
The scenarios are the core's :class:`RuntimeFaultSuite`."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent
from harness_core.testing.conformance import RuntimeFaultSuite


def _runtime_pid(leader: int) -> int:
    """The native ``codex`` process under the npm launcher (``node .../codex.js``), else ``leader``."""
    pid = leader
    while True:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if "node" not in Path(f"/proc/{pid}/comm").read_text() or not children:
            return pid
        pid = int(children[0])


@pytest.mark.requires_runtime("codex")
class TestCodexFaults(RuntimeFaultSuite):
    @pytest.fixture
    def make_fault_agent(self, make_agent: Callable[..., HarnessAgent]) -> Callable[..., HarnessAgent]:
        return make_agent

    async def kill_runtime(self, session: Any) -> None:
        leader = session.adapter_session.pid
        assert leader is not None
        os.kill(_runtime_pid(leader), signal.SIGKILL)
