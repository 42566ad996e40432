"""The README works verbatim: its set-up commands, its CI parity and its API example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_commands() -> list[str]:
    blocks = re.findall(r"^```console\n(.*?)^```", README, flags=re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_setup_is_two_commands_and_ci_runs_the_same_test_command() -> None:
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^```console\n(.*?)^```", setup, flags=re.S | re.M)
    assert [c.strip() for c in commands] == ["uv run harness demo", "uv run pytest"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^uv run pytest$", ci, flags=re.M), ".ci/run must run the README's test command"


def test_every_harness_subcommand_in_the_readme_exists() -> None:
    from click.testing import CliRunner

    from harness_core.cli import cli

    listed = set(re.findall(r"^\| `harness ([a-z-]+)", README, flags=re.M))
    assert {"demo", "run", "plugins", "tools", "rules", "model-server"} <= listed
    for name in sorted(listed):
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0, f"harness {name} --help failed: {result.output}"


def test_every_harness_subcommand_is_in_the_readme() -> None:
    import click

    from harness_core.cli import cli

    listed = set(re.findall(r"^\| `harness ([a-z-]+)", README, flags=re.M))
    missing = sorted(set(cli.list_commands(click.Context(cli))) - listed)
    assert not missing, f"harness subcommands missing from the README's command table: {missing}"


def test_the_api_example_runs_with_a_scripted_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from harness_builtin import ScriptedModelClient

    from harness_core.testing import ModelTurn, ToolCallSpec

    code = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)[0]
    assert '"anthropic:claude-sonnet-4-5"' in code
    # Only the model is replaced: the example runs as written, offline.
    code = code.replace('"anthropic:claude-sonnet-4-5"', "SCRIPTED_MODEL")
    model = ScriptedModelClient([
        ModelTurn("Checking.", tool_calls=[ToolCallSpec("weather", {"city": "Paris"})]),
        "It is 12 degrees in Paris.",
    ])
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme", "SCRIPTED_MODEL": model})
    out = capsys.readouterr().out
    assert "'toolName': 'weather'" in out
    assert "'celsius': 12" in out
    assert "It is 12 degrees in Paris." in out
