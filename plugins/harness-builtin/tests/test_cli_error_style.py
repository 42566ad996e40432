"""One style for runtime errors of ``harness`` commands: ``harness: error: <message>`` on
stderr. Usage errors keep click's ``Usage: ... Error: ...`` (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

import harness_core.plugins.manager as plugins_module
from harness_core import hookimpl
from harness_core.cli import cli
from harness_core.plugins.manager import create_plugin_manager


class _StartFails:
    """An adapter whose session start rejects a setting with a plain TypeError."""

    harness_id = "picky-start"
    supports_builtin_approvals = False
    supports_builtin_filtering = False

    async def start(self, request: Any) -> Any:
        raise TypeError("level must be an int, got 'high'")


def _picky(**settings: Any) -> Any:
    raise ValueError(f"level must be between 1 and 3, got {settings.get('level')!r}")


class _PickyPlugin:
    @hookimpl
    def harness_adapters(self) -> dict[str, Any]:
        return {"picky": _picky, "picky-start": lambda **settings: _StartFails()}

    @hookimpl
    def harness_cli_commands(self) -> list[click.Command]:
        @click.command("fails")
        def fails() -> None:
            """A plugin command failing the click way."""
            raise click.ClickException("the frobnicator is offline")

        return [fails]


@pytest.fixture
def picky(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process-wide plugin manager, plus adapters that reject settings plainly."""
    manager = create_plugin_manager(plugins=[_PickyPlugin()])
    monkeypatch.setattr(plugins_module, "_default", manager)


def test_unknown_harness_in_run_is_one_error_line(workspace: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "hi", "--harness", "nope", "--cwd", str(workspace)])
    assert result.exit_code == 2
    assert result.stderr.startswith("harness: error: no adapter plugin provides harness 'nope' (available: ")
    assert "builtin" in result.stderr and result.stderr.count("\n") == 1


def test_demo_with_an_unknown_harness_fails_before_doing_anything(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--harness", "nope", "--workspace-dir", str(tmp_path / "demo")])
    assert result.exit_code == 2
    assert result.stdout == ""  # no banner, no model server
    assert result.stderr.startswith("harness: error: no adapter plugin provides harness 'nope' (available: ")
    assert "builtin" in result.stderr
    assert not (tmp_path / "demo").exists() or not any((tmp_path / "demo").iterdir())  # no workspace made


def test_a_factory_rejecting_a_setting_with_value_error_exits_2(picky: None, workspace: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "hi", "--harness", "picky", "-o", "level=7", "--cwd", str(workspace)])
    assert result.exit_code == 2, result.output
    assert result.stderr == "harness: error: harness 'picky' rejected its settings: level must be between 1 and 3, got 7\n"


def test_a_session_start_rejecting_a_setting_with_type_error_exits_2(picky: None, workspace: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "hi", "--harness", "picky-start", "--permission-mode", "allow-all",
                                      "--cwd", str(workspace)])
    assert result.exit_code == 2, result.output
    assert result.stderr == ("harness: error: harness 'picky-start' rejected its settings: "
                             "level must be an int, got 'high'\n")


def test_click_exceptions_of_subcommands_take_the_same_prefix(picky: None) -> None:
    result = CliRunner().invoke(cli, ["fails"])
    assert result.exit_code == 1
    assert result.stderr == "harness: error: the frobnicator is offline\n"


def test_usage_errors_keep_clicks_form(workspace: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "hi", "-o", "novalue", "--cwd", str(workspace)])
    assert result.exit_code == 2
    assert "Usage: " in result.stderr and "Error: Invalid value for --option" in result.stderr
    assert "harness: error" not in result.stderr
