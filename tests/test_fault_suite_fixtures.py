"""The RuntimeFaultSuite example in docs/adapters.md works as written: the suite brings the
``workspace`` fixture its scenarios take (an adapter's test folder need not define one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = '''
import os, signal
import pytest
from harness_core.testing.conformance import RuntimeFaultSuite


class TestFooFaults(RuntimeFaultSuite):
    @pytest.fixture
    def make_fault_agent(self):
        return lambda server, **kw: None

    async def kill_runtime(self, session):
        os.kill(session.adapter_session.pi_pid, signal.SIGKILL)

    def test_the_workspace_fixture_is_there(self, workspace):
        assert workspace.is_dir() and not any(workspace.iterdir())
'''


def test_the_documented_fault_suite_subclass_needs_no_workspace_fixture_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "test_foo_faults.py").write_text(EXAMPLE)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path),
                           str(tmp_path / "test_foo_faults.py"), "-k", "workspace_fixture"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "1 passed" in done.stdout
