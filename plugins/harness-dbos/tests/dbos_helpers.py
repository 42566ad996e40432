"""Helpers of the harness-dbos tests: a scripted model server in the test process and
worker OS processes (``starter.py`` starts a turn, ``harness worker`` recovers turns)
sharing one SQLite system database (or ``HARNESS_DBOS_TEST_POSTGRES_URL``'s Postgres)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
TIMEOUT = 120.0


class Workers:
    """Starts worker processes of the test app and kills them at the end."""

    def __init__(self, tmp: Path, model_url: str, database_url: str) -> None:
        self.tmp = tmp
        self.effects = tmp / "effects.txt"
        self.workspace = tmp / "workspace"
        self.workspace.mkdir()
        self.database_url = database_url
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
            "APP_MODEL_URL": model_url,
            "APP_EFFECTS": str(self.effects),
            "HARNESS_DBOS_DATABASE_URL": database_url,
        }
        self.processes: list[subprocess.Popen[str]] = []

    def spawn(self, *argv: str, **env: str) -> subprocess.Popen[str]:
        process = subprocess.Popen([*argv], env={**self.env, **env}, cwd=self.tmp, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.processes.append(process)
        return process

    def start_turn(self, workflow_id: str, prompt: str, **env: str) -> subprocess.Popen[str]:
        """A worker that starts the turn ``workflow_id``."""
        return self.spawn(sys.executable, str(HERE / "starter.py"), workflow_id, prompt, str(self.workspace), **env)

    def worker(self, **env: str) -> subprocess.Popen[str]:
        """``harness worker`` on the test app: recovers pending turns."""
        return self.spawn(sys.executable, "-m", "harness_core.cli", "worker", "--app", "durable_app", **env)

    def effects_lines(self) -> list[str]:
        return self.effects.read_text().splitlines() if self.effects.exists() else []

    def kill(self, process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()


def wait_until(condition: Callable[[], object], what: str, timeout: float = TIMEOUT) -> None:
    """Poll ``condition`` every 50 ms until it is true; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)




def turn_result(database_url: str, workflow_id: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The turn's result, read by a DurableClient in this process; waits (and retries)
    while the worker has not created the system database or the workflow yet."""
    import anyio
    import harness_dbos

    async def main() -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with harness_dbos.DurableClient(database_url) as client:
                    with anyio.fail_after(max(1.0, deadline - time.monotonic())):
                        return await client.result(workflow_id)
            except TimeoutError:
                raise
            except Exception:  # no system database / no such workflow yet
                if time.monotonic() > deadline:
                    raise
                await anyio.sleep(0.2)

    result: dict[str, Any] = anyio.run(main)
    return result
