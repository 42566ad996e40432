"""``harness run``: rendering, NDJSON, approvals with and without a terminal, exit codes, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness_core.cli import cli
from harness_core.cli import run_command as _cli_run
from harness_core.parts.models import parse_part
from harness_core.testing import Fault, ModelTurn, Script, ToolCallSpec

SCRIPT = Script.of(
    ModelTurn("Looking around.", tool_calls=[ToolCallSpec("ls", {}), ToolCallSpec("read", {"file_path": "a.py"})]),
    ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo made > made.txt; echo ran"})]),
    "Done.",
)


def run(server, workspace: Path, *args: str, env: dict[str, str] | None = None):
    argv = ["run", "look around", "--model", "anthropic:fake", "--base-url", server.base_url, "-o", "api_key=k",
            "-o", "max_retries=0", "--cwd", str(workspace), *args]
    return CliRunner().invoke(cli, argv, env=env, catch_exceptions=False)


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "a.py").write_text("x = 1\n")
    return workspace


def test_renders_text_tools_results_file_changes_and_usage(scripted_model_server, project: Path) -> None:
    result = run(scripted_model_server(SCRIPT), project, "--approve", "allow")
    out = result.output
    assert result.exit_code == 0, out
    assert "Looking around." in out and "Done." in out
    assert "● ls [built-in]" in out and '● read [built-in] file_path="a.py"' in out
    assert "x = 1" in out
    assert "✓ approved" in out
    assert "✎ files changed: +made.txt" in out
    assert "── finish: stop · 3 tool call(s)" in out and "tokens" in out
    assert (project / "made.txt").exists()


def test_json_writes_parts_as_ndjson(scripted_model_server, project: Path) -> None:
    result = run(scripted_model_server(SCRIPT), project, "--approve", "allow", "--json")
    assert result.exit_code == 0
    lines = result.stdout.strip().splitlines()
    parts = [parse_part(json.loads(line)) for line in lines]
    types = [p.type for p in parts]
    assert types[0] == "start" and types[-1] == "finish"
    assert "tool-approval-request" in types and "tool-approval-response" in types
    assert any(p.type == "tool-call" and getattr(p, "tool_name", "") == "fileChange" for p in parts)
    assert all(line.startswith("{") for line in lines)


def test_ask_without_a_terminal_denies_with_a_reason(scripted_model_server, project: Path) -> None:
    server = scripted_model_server(SCRIPT)
    result = run(server, project)  # --approve ask is the default; CliRunner has no TTY
    assert result.exit_code == 0
    assert "no terminal to ask for approval" in result.output
    assert "✗ denied" in result.output
    assert not (project / "made.txt").exists()
    assert "no terminal to ask on" in (server.last_tool_result() or "")


def test_ask_on_a_terminal_with_always(scripted_model_server, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo two"})]),
        "ok",
    )
    answers = iter(["maybe", "a"])
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(_cli_run, "_stdin_is_tty", lambda: True)
    monkeypatch.setattr(_cli_run, "_read_line", read_line)
    result = run(scripted_model_server(script), project)
    assert result.exit_code == 0, result.output
    # One question (asked twice after a bad answer) covers both calls: "always for this tool".
    assert len(prompts) == 2 and "[a]lways" in prompts[0]
    assert result.output.count("✓ approved") == 2


def test_deny_everything(scripted_model_server, project: Path) -> None:
    server = scripted_model_server(SCRIPT)
    result = run(server, project, "--approve", "deny")
    assert "✗ denied" in result.output and not (project / "made.txt").exists()
    assert "--approve deny" in (server.last_tool_result() or "")


def test_provider_error_exits_1(scripted_model_server, project: Path) -> None:
    result = run(scripted_model_server(SCRIPT, faults=[Fault.http_error(401)]), project)
    assert result.exit_code == 1
    assert "error [authentication]" in result.output and "ANTHROPIC_API_KEY" in result.output
    assert "── finish: error" in result.output


def test_limit_exits_3(scripted_model_server, project: Path) -> None:
    loop = Script(respond=lambda request: ModelTurn(tool_calls=[ToolCallSpec("ls", {})]))
    result = run(scripted_model_server(loop), project, "-o", "max_steps=2")
    assert result.exit_code == 3
    assert "error [max-steps]" in result.output and "── finish: length" in result.output


def test_missing_model_is_one_paragraph_and_exits_2(project: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "HARNESS_MODEL": ""}
    result = CliRunner().invoke(cli, ["run", "hi", "--cwd", str(project)], env=env)
    assert result.exit_code == 2
    message = result.stderr.strip()
    assert "\n" not in message
    assert "no model configured" in message and "--model" in message and "harness demo" in message


def test_missing_key_for_a_named_provider_exits_2(project: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": ""}
    result = CliRunner().invoke(cli, ["run", "hi", "--model", "anthropic:claude-sonnet-4-5", "--cwd", str(project)],
                                env=env)
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "harness demo" in result.stderr


def test_configuration_errors_exit_2(project: Path) -> None:
    unknown = CliRunner().invoke(cli, ["run", "hi", "--harness", "nope", "--cwd", str(project)])
    assert unknown.exit_code == 2 and "no adapter plugin provides harness 'nope'" in unknown.stderr
    bad_model = CliRunner().invoke(cli, ["run", "hi", "--model", "gpt-4.1", "--cwd", str(project)])
    assert bad_model.exit_code == 2 and "provider:model" in bad_model.stderr
    bad_option = CliRunner().invoke(cli, ["run", "hi", "-o", "novalue", "--cwd", str(project)])
    assert bad_option.exit_code == 2 and "KEY=VALUE" in bad_option.output


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_aborts_cleanly(scripted_model_server, project: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo $$ > pid.txt; sleep 60"})]),
                       "never")
    server = scripted_model_server(script)
    process = subprocess.Popen(
        [sys.executable, "-m", "harness_core.cli", "run", "wait", "--model", "anthropic:fake", "--base-url",
         server.base_url, "-o", "api_key=k", "--approve", "allow", "--cwd", str(project)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (project / "pid.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, (out, err)
    assert "aborted" in out
    pid = int((project / "pid.txt").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_renders_reasoning_repair_and_compaction(scripted_model_server, project: Path) -> None:
    calls = iter(range(100))

    def respond(request):  # type: ignore[no-untyped-def]
        if request.is_side_request:
            return "SUMMARY of the early work."
        step = next(calls)
        if step == 0:
            return ModelTurn("Hmm.", reasoning="Which file first?", tool_calls=[ToolCallSpec("read", "{broken")])
        if step < 4:
            return ModelTurn("Still looking " + "x" * 300, tool_calls=[ToolCallSpec("ls", {})])
        return "Finished."

    result = run(scripted_model_server(Script(respond=respond)), project, "-o", "compact_threshold_tokens=200",
                 "-o", "compact_keep_messages=2")
    out = result.output
    assert result.exit_code == 0, out
    assert "thinking…" in out and "Which file first?" in out
    assert "⚠ unusable call to read: the arguments are not valid JSON" in out
    assert "⟳ compacting the conversation (auto)" in out and "compacted to" in out
    assert "Finished." in out
