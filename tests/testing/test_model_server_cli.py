"""``harness model-server``: the click command, run for real in a child process."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
from click.testing import CliRunner

from harness_core.testing.model_server_cli import model_server

LAUNCH = "from harness_core.testing.model_server_cli import model_server; model_server()"


def test_serves_until_interrupted(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("turns:\n  - Hello from the CLI\n", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "--script", str(script), "--port", "0", "--format", "chat"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C must reach it even when this suite runs in the background, where SIGINT is
        # ignored and the child would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/v1")
        answer = httpx.post(
            url + "/chat/completions",
            json={
                "model": "m",
                "messages": [],
                "tools": [{"type": "function", "function": {"name": "f"}}],
            },
        ).json()
        assert answer["choices"][0]["message"]["content"] == "Hello from the CLI"
        assert httpx.post(url.removesuffix("/v1") + "/v1/messages", json={}).status_code == 404
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0
    assert "POST /v1/chat/completions -> 200 turn=0 answer=script" in stderr
    assert "stopped" in stderr


def test_bad_script_reports_file_and_line(tmp_path: Path) -> None:
    script = tmp_path / "bad.yaml"
    script.write_text("turns:\n  - txt: typo\n", encoding="utf-8")
    result = CliRunner().invoke(model_server, ["--script", str(script)])
    assert result.exit_code == 1
    assert f"{script}:2:5: turns[0].txt: unknown field" in result.output


def test_help_names_the_options() -> None:
    result = CliRunner().invoke(model_server, ["--help"])
    assert result.exit_code == 0
    for option in ("--script", "--port", "--format", "--host"):
        assert option in result.output
