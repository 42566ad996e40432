"""LocalSandbox commands: working directory, scrubbed environment, timeouts, output caps."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest

from harness_core import LocalSandbox
from harness_core.sandbox import is_secret_env_name

pytestmark = pytest.mark.anyio

HOST_HOME = os.path.expanduser("~")


@pytest.fixture
def sandbox(tmp_path: Path) -> LocalSandbox:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return LocalSandbox(workspace)


async def test_runs_in_the_workspace(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command("pwd; echo out; echo err >&2; exit 3")
    assert result.exit_code == 3
    assert result.stdout.splitlines() == [str(sandbox.root), "out"]
    assert result.stderr == "err\n"
    assert result.timed_out is False


async def test_argument_list_runs_without_a_shell(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command(["printf", "%s|", "a b", "$HOME", ";ls"])
    assert result.stdout == "a b|$HOME|;ls|"
    assert result.exit_code == 0


async def test_chained_commands_still_run_in_the_workspace(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command("cd /tmp && cd - >/dev/null; touch made-here && ls")
    assert "made-here" in result.stdout
    assert (sandbox.root / "made-here").exists()


async def test_environment_has_no_host_secrets(sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = {
        "OPENAI_API_KEY": "sk-leak",
        "ANTHROPIC_API_KEY": "sk-ant-leak",
        "GITHUB_TOKEN": "ghp-leak",
        "AWS_SECRET_ACCESS_KEY": "aws-leak",
        "AWS_PROFILE": "prod",
        "MY_APP_SECRET": "leak",
        "DB_PASSWORD": "leak",
        "HARNESS_UNRELATED": "not-allowlisted",
    }
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    result = await sandbox.run_command("env")
    names = {line.split("=", 1)[0] for line in result.stdout.splitlines() if "=" in line}
    assert not names & set(planted)
    assert "leak" not in result.stdout
    assert "PATH" in names and "HOME" in names
    home = next(line.split("=", 1)[1] for line in result.stdout.splitlines() if line.startswith("HOME="))
    assert home != HOST_HOME
    assert await anyio.Path(home).is_dir()
    assert sandbox.root not in Path(home).parents


async def test_allowlist_extension_still_drops_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOO_SETTING", "kept")
    monkeypatch.setenv("FOO_API_KEY", "dropped")
    sandbox = LocalSandbox(tmp_path, inherit_env=("PATH", "FOO_SETTING", "FOO_API_KEY"), env={"EXPLICIT_TOKEN": "given"})
    result = await sandbox.run_command("env", env={"PER_CALL": "yes"})
    assert "FOO_SETTING=kept" in result.stdout
    assert "FOO_API_KEY" not in result.stdout
    # Variables the caller passes explicitly are the caller's choice.
    assert "EXPLICIT_TOKEN=given" in result.stdout
    assert "PER_CALL=yes" in result.stdout


async def test_given_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sandbox = LocalSandbox(tmp_path, home=home)
    result = await sandbox.run_command('printf %s "$HOME"')
    assert result.stdout == str(home)


@pytest.mark.parametrize(
    "name", ["OPENAI_API_KEY", "gh_token", "AWS_REGION", "SSH_AUTH_SOCK", "X_SECRET_Y", "NPM_TOKEN", "ACCESS_TOKEN_URL"]
)
def test_secret_names(name: str) -> None:
    assert is_secret_env_name(name)


@pytest.mark.parametrize("name", ["PATH", "LANG", "HOME", "TERM", "EDITOR"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_env_name(name)


async def test_timeout_kills_the_whole_process_group(sandbox: LocalSandbox) -> None:
    started = time.monotonic()
    result = await sandbox.run_command("sleep 30 & echo started; wait", timeout=0.5)
    assert time.monotonic() - started < 10
    assert result.timed_out is True
    assert result.exit_code is None
    assert result.stdout == "started\n"


async def test_background_process_holding_the_pipe_does_not_hang(sandbox: LocalSandbox) -> None:
    started = time.monotonic()
    result = await sandbox.run_command("sleep 20 & echo done")
    assert time.monotonic() - started < 10
    assert result.exit_code == 0
    assert result.stdout == "done\n"


async def test_output_is_capped_with_a_marker(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path, max_output_bytes=1000)
    result = await sandbox.run_command("head -c 5000 /dev/zero | tr '\\0' a; head -c 3000 /dev/zero | tr '\\0' b >&2")
    assert result.stdout.startswith("a" * 1000)
    assert "[output cut: 4000 more bytes not kept]" in result.stdout
    assert "[output cut: 2000 more bytes not kept]" in result.stderr


async def test_undecodable_bytes_are_replaced(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command("printf 'ok\\377\\376end'")
    assert result.stdout == "ok\ufffd\ufffdend"


async def test_bad_arguments(sandbox: LocalSandbox) -> None:
    with pytest.raises(ValueError, match="empty"):
        await sandbox.run_command("   ")
    with pytest.raises(ValueError, match="empty"):
        await sandbox.run_command([])
    with pytest.raises(ValueError, match="timeout"):
        await sandbox.run_command("true", timeout=0)


async def test_stop_deletes_private_home_and_refuses_later_commands(sandbox: LocalSandbox) -> None:
    result = await sandbox.run_command('printf %s "$HOME"')
    home = anyio.Path(result.stdout)
    assert await home.is_dir()
    await sandbox.stop()
    assert not await home.exists()
    with pytest.raises(RuntimeError, match="stopped"):
        await sandbox.run_command("true")


async def test_restricted_view_runs_commands(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    result = await view.run_command("echo $((1+2))")
    assert result.stdout == "3\n"


async def test_commands_can_still_read_outside_the_workspace(sandbox: LocalSandbox) -> None:
    """Documented limit: path confinement does not confine shell commands."""
    result = await sandbox.run_command("cat /etc/passwd >/dev/null && echo readable")
    assert result.stdout == "readable\n"


async def test_cancellation_kills_the_command(sandbox: LocalSandbox) -> None:
    with anyio.move_on_after(0.5):
        await sandbox.run_command("echo $$ > pid; sleep 30")
    pid = int((sandbox.root / "pid").read_text())
    await anyio.sleep(0.1)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
