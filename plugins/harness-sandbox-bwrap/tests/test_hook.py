"""The ``harness_sandboxes`` hook: lookup by name, conflicts, refused shapes, and one clear
CLI error when bubblewrap is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from harness_sandbox_bwrap import BwrapSandbox, plugin

from harness_core import HarnessConfigurationError, LocalSandbox, create_plugin_manager, hookimpl
from harness_core.cli import cli


class Other:
    @hookimpl
    def harness_sandboxes(self) -> dict[str, Any]:
        return {"bwrap": LocalSandbox}


class ClaimsLocal:
    @hookimpl
    def harness_sandboxes(self) -> dict[str, Any]:
        return {"local": LocalSandbox}


@pytest.mark.requires_runtime("bwrap")
def test_the_plugin_contributes_bwrap_by_name(workspace: Path) -> None:
    manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[plugin])
    sandbox = manager.hooks.sandbox_factory("bwrap")(workspace)
    assert isinstance(sandbox, BwrapSandbox) and sandbox.network == "none"
    assert manager.hooks.sandbox_factory("bwrap-network")(workspace).network == "host"  # type: ignore[attr-defined]
    with pytest.raises(HarnessConfigurationError, match=r"available: local, bwrap, bwrap-network"):
        manager.hooks.sandbox_factory("firejail")


def test_two_plugins_with_one_name_is_an_error() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[plugin, Other()])
    with pytest.raises(HarnessConfigurationError, match="contributed by both"):
        manager.hooks.sandbox_factory("bwrap")


def test_local_cannot_be_contributed() -> None:
    with pytest.warns(Warning, match=r"harness_sandboxes: entry 'local' must map a sandbox name \(not 'local'\)"):
        manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[ClaimsLocal()])
    with pytest.raises(HarnessConfigurationError, match="available: local\\)"):
        manager.hooks.sandbox_factory("local")


def test_missing_bwrap_is_one_clear_cli_error(workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = CliRunner().invoke(cli, ["run", "hi", "--model", "anthropic:fake", "--base-url", "http://127.0.0.1:9",
                                      "-o", "api_key=k", "--cwd", str(workspace), "--sandbox", "bwrap"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("harness: error: sandbox 'bwrap' cannot be used here")
    assert "bubblewrap is not installed" in lines[0] and "apt-get install -y bubblewrap" in lines[0]
