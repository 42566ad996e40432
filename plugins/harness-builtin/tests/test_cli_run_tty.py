"""Ctrl-C on a real terminal: ``harness run`` and ``harness demo`` in a pseudo-terminal.

The child process gets the pty as its controlling terminal, so typing ``\\x03`` makes the
terminal driver send SIGINT, exactly as a person pressing Ctrl-C would.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")

# Make the pty (stdin) the controlling terminal of a new session, then run the command.
_WITH_TTY = "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); os.execv(sys.argv[1], sys.argv[1:])"
HARNESS = (sys.executable, "-m", "harness_core.cli")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = "approve? [y]es / [n]o / [a]lways"


class Terminal:
    """A process (``harness`` by default) on a pseudo-terminal: read its screen, type keys, wait."""

    def __init__(self, *args: str, stdout_pipe: bool = False, command: tuple[str, ...] = HARNESS) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TERM": "xterm"}
        env.pop("HARNESS_MODEL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WITH_TTY, *command, *args],
            stdin=slave, stdout=subprocess.PIPE if stdout_pipe else slave, stderr=slave,
            start_new_session=True, env=env, text=stdout_pipe or None,
        )
        os.close(slave)
        self.screen = ""

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not data:
            return False
        self.screen += _ANSI.sub("", data.decode("utf-8", errors="replace")).replace("\r", "")
        return True

    def expect(self, text: str, *, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.screen.count(text) < count:
            if time.monotonic() > deadline or not self._pump(0.1):
                raise AssertionError(f"{text!r} (x{count}) never appeared; the screen:\n{self.screen}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._pump(0.1)
        while self._pump(0.05) and self.process.poll() is not None and select.select([self.master], [], [], 0)[0]:
            pass
        code = self.process.poll()
        if code is None:
            raise AssertionError(f"the process did not exit within {timeout} s; the screen:\n{self.screen}")
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        os.close(self.master)


@pytest.fixture
def terminals() -> Any:
    opened: list[Terminal] = []

    def open_terminal(*args: str, stdout_pipe: bool = False, command: tuple[str, ...] = HARNESS) -> Terminal:
        terminal = Terminal(*args, stdout_pipe=stdout_pipe, command=command)
        opened.append(terminal)
        return terminal

    yield open_terminal
    for terminal in opened:
        terminal.close()


def _bash_then_answer() -> Script:
    return Script.of(ModelTurn("Let me run it.", tool_calls=[ToolCallSpec("bash", {"command": "echo ran > ran.txt"})]),
                     "done")


def _run_args(server: Any, workspace: Path, *extra: str) -> tuple[str, ...]:
    return ("run", "go", "--model", "anthropic:fake", "--base-url", server.base_url, "-o", "api_key=k",
            "-o", "max_retries=0", "--cwd", str(workspace), "--approve", "ask", *extra)


def _assert_no_traceback(screen: str) -> None:
    assert "Traceback" not in screen and "Exception" not in screen and "KeyboardInterrupt" not in screen, screen


def test_ctrl_c_at_the_approval_prompt_aborts_cleanly(scripted_model_server, workspace: Path, terminals) -> None:
    server = scripted_model_server(_bash_then_answer())
    terminal = terminals(*_run_args(server, workspace))
    terminal.expect(PROMPT)
    started = time.monotonic()
    terminal.type("\x03")
    code = terminal.wait()
    assert code == 130, terminal.screen
    assert time.monotonic() - started < 10  # the first Ctrl-C ends the turn, no second one needed
    assert "aborted: interrupted (Ctrl-C)" in terminal.screen
    assert "── finish: aborted" in terminal.screen
    _assert_no_traceback(terminal.screen)
    assert not (workspace / "ran.txt").exists()  # the call waiting for approval never ran
    assert len(server.requests) == 1  # and the model was not asked again


def test_two_quick_ctrl_c_at_the_prompt_exit_130_without_a_traceback(scripted_model_server, workspace: Path,
                                                                        terminals) -> None:
    server = scripted_model_server(_bash_then_answer())
    terminal = terminals(*_run_args(server, workspace))
    terminal.expect(PROMPT)
    terminal.type("\x03\x03")
    assert terminal.wait() == 130, terminal.screen
    assert "aborted" in terminal.screen
    _assert_no_traceback(terminal.screen)


def test_ctrl_c_at_the_prompt_with_json_ends_the_parts_with_an_abort_part(scripted_model_server, workspace: Path,
                                                                          terminals) -> None:
    server = scripted_model_server(_bash_then_answer())
    terminal = terminals(*_run_args(server, workspace, "--json"), stdout_pipe=True)
    terminal.expect(PROMPT)
    terminal.type("\x03")
    assert terminal.wait() == 130, terminal.screen
    assert terminal.process.stdout is not None
    lines = terminal.process.stdout.read().splitlines()
    parts = [json.loads(line) for line in lines]
    assert parts[-1] == {"type": "abort", "reason": "interrupted (Ctrl-C)"}
    assert any(part["type"] == "tool-approval-request" for part in parts)
    _assert_no_traceback(terminal.screen)


def test_answering_then_ctrl_c_while_the_command_runs(scripted_model_server, workspace: Path, terminals) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo $$ > pid.txt; sleep 60"})]),
                       "never")
    server = scripted_model_server(script)
    terminal = terminals(*_run_args(server, workspace))
    terminal.expect(PROMPT)
    terminal.type("y\n")
    deadline = time.monotonic() + 30
    while not (workspace / "pid.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    terminal.type("\x03")
    assert terminal.wait() == 130, terminal.screen
    assert "aborted: interrupted (Ctrl-C)" in terminal.screen
    _assert_no_traceback(terminal.screen)
    pid = int((workspace / "pid.txt").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


# A runtime whose abort never returns: the first Ctrl-C waits on it, the second must not.
_STUCK_RUNTIME = """
import sys
import anyio
import harness_core.plugins.manager as plugins
from harness_core.testing import scripted_adapter as scripted
from harness_core.testing import Say, ScriptedAdapter, Sleep

async def stuck_abort(self):
    print("runtime: abort requested, not answering", flush=True)
    await anyio.sleep(3600)

scripted.ScriptedTurn.abort = stuck_abort
runtime = ScriptedAdapter([[[Say("working."), Sleep(3600)]]], workspace=sys.argv[1])
plugins._default = plugins.create_plugin_manager(plugins=[runtime])
from harness_core.cli import main
main(["run", "go", "--harness", "scripted", "--permission-mode", "allow-all", "--cwd", sys.argv[1]])
"""


def test_a_second_ctrl_c_exits_at_once_when_the_abort_hangs(workspace: Path, tmp_path: Path, terminals) -> None:
    script = tmp_path / "stuck_runtime.py"
    script.write_text(_STUCK_RUNTIME)
    terminal = terminals(str(workspace), command=(sys.executable, str(script)))
    terminal.expect("working.")
    terminal.type("\x03")
    terminal.expect("runtime: abort requested, not answering")
    time.sleep(0.3)
    assert terminal.process.poll() is None  # the first Ctrl-C waits for the runtime's abort
    started = time.monotonic()
    terminal.type("\x03")
    assert terminal.wait(timeout=20) == 130, terminal.screen
    assert time.monotonic() - started < 5
    assert "aborted" in terminal.screen
    _assert_no_traceback(terminal.screen)


# -- harness demo ---------------------------------------------------------------------------


def test_demo_ctrl_c_at_the_first_prompt_claims_nothing(tmp_path: Path, terminals) -> None:
    terminal = terminals("demo", "--workspace-dir", str(tmp_path))
    terminal.expect(PROMPT)
    terminal.type("\x03")
    assert terminal.wait() == 130, terminal.screen
    screen = terminal.screen
    _assert_no_traceback(screen)
    assert "aborted: interrupted (Ctrl-C)" in screen
    summary = screen[screen.index("summary"):]
    assert "run            aborted (Ctrl-C)" in summary
    assert "calc/stats.py not edited" in summary and "edited with edit" not in summary
    assert "tests now      FAIL" in summary
    assert "3 built-in, 0 host" in summary  # two reads, and the bash call that waited for approval
    assert "0 approved, 0 denied" in summary


def test_demo_ctrl_c_after_the_edit_claims_the_edit(tmp_path: Path, terminals) -> None:
    terminal = terminals("demo", "--workspace-dir", str(tmp_path))
    terminal.expect(PROMPT)
    terminal.type("y\n")
    terminal.expect(PROMPT, count=2)  # the second test run, after the edit
    terminal.type("\x03")
    assert terminal.wait() == 130, terminal.screen
    screen = terminal.screen
    _assert_no_traceback(screen)
    summary = screen[screen.index("summary"):]
    assert "run            aborted (Ctrl-C)" in summary
    assert "calc/stats.py edited with edit" in summary
    assert "tests now      pass" in summary
    assert "1 approved, 0 denied" in summary
