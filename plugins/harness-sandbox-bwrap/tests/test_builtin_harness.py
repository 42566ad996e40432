"""The built-in harness under a BwrapSandbox: the model's bash commands are confined, and a
denied command reaches the model as an ordinary failed command. Real harness, real HTTP
model wire (a scripted model server on 127.0.0.1), real bubblewrap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from harness_sandbox_bwrap import BwrapSandbox

from harness_core import HarnessAgent, LocalSandbox, ToolErrorPart, ToolResultPart
from harness_core.cli import cli
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("bwrap")]


def agent_for(server: Any) -> HarnessAgent:
    options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key", "max_retries": 0}
    return HarnessAgent(harness="builtin", harness_options=options, permission_mode="allow-all",
                        include_plugin_tools=False)


def bash(command: str) -> ModelTurn:
    return ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})])


async def run_commands(server_factory: Any, sandbox: BwrapSandbox, commands: list[str]) -> list[str]:
    server = server_factory(Script.of(*(bash(c) for c in commands), "done"))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=sandbox) as session:
        result = await agent.generate(session=session, prompt="try it")
    assert result.finish_reason == "stop", result.parts
    outputs: list[str] = []
    for part in result.parts:
        if isinstance(part, ToolResultPart) and part.tool_name == "bash":
            outputs.append(str(part.output))
        elif isinstance(part, ToolErrorPart) and part.tool_name == "bash":  # a failed command, not a crash
            outputs.append(str(part.error))
    assert len(outputs) == len(commands), result.parts
    # What the model saw last is the last command's output.
    assert outputs[-1].splitlines()[-1] in (server.last_tool_result() or "")
    return outputs


async def test_escapes_fail_as_normal_commands_and_work_inside(
    scripted_model_server: Any, workspace: Path, outside: Path, loopback_server: int
) -> None:
    sandbox = BwrapSandbox(workspace, network="none")
    outputs = await run_commands(scripted_model_server, sandbox, [
        f"cat {outside}/secret.txt",
        f"ln -s {outside} out; echo pwned > out/pwned.txt",
        f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3",
        "echo inside > inside.txt && cat inside.txt",
    ])
    secret, link, network, inside = outputs
    assert "No such file or directory" in secret and "[exit code: 1]" in secret
    assert "TOP-SECRET-VALUE" not in secret
    assert "No such file or directory" in link and "[exit code: 1]" in link
    assert "hello-from-host" not in network and "[exit code: 1]" in network
    assert inside == "inside\n[exit code: 0]"
    assert not (outside / "pwned.txt").exists()
    assert (workspace / "inside.txt").read_text() == "inside\n"
    await sandbox.stop()


async def test_host_network_policy_reaches_the_loopback_server(
    scripted_model_server: Any, workspace: Path, loopback_server: int
) -> None:
    sandbox = BwrapSandbox(workspace, network="host")
    [output] = await run_commands(scripted_model_server, sandbox,
                                  [f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -n1 <&3"])
    assert output == "hello-from-host\n[exit code: 0]"
    await sandbox.stop()


def cli_run(server: Any, workspace: Path, *args: str) -> Any:
    argv = ["run", "look around", "--model", "anthropic:fake", "--base-url", server.base_url, "-o", "api_key=k",
            "-o", "max_retries=0", "--cwd", str(workspace), "--approve", "allow", *args]
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


def test_harness_run_selects_bwrap_by_name(scripted_model_server: Any, workspace: Path, outside: Path) -> None:
    # The CLI's bwrap mounts the running interpreter read-only (it may live under $HOME);
    # nothing else of the host outside the system directories, this test file included.
    script = Script.of(bash(f"echo pwned > {outside}/pwned.txt; echo inside > in.txt; "
                            f"cat {Path(__file__).resolve()} | head -c 20; ls /"), "done")
    server = scripted_model_server(script)
    result = cli_run(server, workspace, "--sandbox", "bwrap")
    assert result.exit_code == 0, result.output
    assert (workspace / "in.txt").read_text() == "inside\n"
    assert not (outside / "pwned.txt").exists()
    listing = (server.last_tool_result() or "").split()
    assert "usr" in listing and "home" not in listing and "srv" not in listing, listing
    assert "No such file or directory" in (server.last_tool_result() or "")
    assert "from __future__" not in (server.last_tool_result() or "")


def test_harness_run_unknown_sandbox_lists_the_available_ones(scripted_model_server: Any, workspace: Path) -> None:
    result = cli_run(scripted_model_server(Script.of("never")), workspace, "--sandbox", "nope")
    assert result.exit_code == 2
    assert "no plugin provides sandbox 'nope'" in result.output
    assert "local" in result.output and "bwrap" in result.output


@pytest.mark.parametrize("harness", [
    "builtin",
    pytest.param("pi", marks=pytest.mark.requires_runtime("pi", "socat")),
    pytest.param("codex", marks=pytest.mark.requires_runtime("codex", "socat")),
])
def test_harness_demo_runs_inside_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str) -> None:
    """``harness demo --sandbox bwrap``: every command of the run goes through the BwrapSandbox
    (the built-in's bash through its command server; pi and Codex wholly inside it), and
    nothing runs through a plain LocalSandbox without the bwrap prefix."""
    served: list[object] = []
    confined: list[list[str]] = []
    unwrapped: list[object] = []
    run_command, confine_runtime, local_run = (BwrapSandbox.run_command, BwrapSandbox.confine_runtime,
                                               LocalSandbox.run_command)

    async def record_served(self: BwrapSandbox, command: Any, **kwargs: Any) -> Any:
        served.append(command)
        return await run_command(self, command, **kwargs)

    def record_confined(self: BwrapSandbox, argv: Any, **kwargs: Any) -> Any:
        confined.append(list(argv))
        return confine_runtime(self, argv, **kwargs)

    async def record_local(self: LocalSandbox, command: Any, **kwargs: Any) -> Any:
        if not (isinstance(command, list) and command and str(command[0]).endswith("bwrap")):
            unwrapped.append(command)
        return await local_run(self, command, **kwargs)

    monkeypatch.setattr(BwrapSandbox, "run_command", record_served)
    monkeypatch.setattr(BwrapSandbox, "confine_runtime", record_confined)
    monkeypatch.setattr(LocalSandbox, "run_command", record_local)
    args = ["demo", "--sandbox", "bwrap", "--yes", "--workspace-dir", str(tmp_path)]
    if harness != "builtin":
        args += ["--harness", harness]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "sandbox    bwrap" in result.output
    assert "tests now      pass" in result.output
    assert unwrapped == [], "a command ran outside bubblewrap"
    if harness == "builtin":
        assert any("unittest" in str(command) for command in served), served
    else:
        assert len(confined) == 1, confined  # the runtime process itself, started inside
