"""``harness plugins`` and ``harness tools``, run as the real console script in a subprocess.

Extra plugins are installed for real: a ``*.dist-info`` directory (METADATA and
entry_points.txt) plus a module, in a temporary directory put on ``PYTHONPATH``; Python's
``importlib.metadata`` finds them exactly as it finds a pip-installed distribution.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def harness_argv() -> list[str]:
    script = Path(sys.executable).with_name("harness")
    if script.exists():
        return [str(script)]
    found = shutil.which("harness")
    return [found] if found else [sys.executable, "-m", "harness_core.cli"]


def run_harness(
    *args: str, extra_path: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    environment["COLUMNS"] = "200"  # one table row per plugin, whatever the terminal
    if extra_path is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(extra_path), environment.get("PYTHONPATH")])
        )
    environment.update(env or {})
    return subprocess.run(
        [*harness_argv(), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


def install_fake_distribution(
    site: Path, *, dist: str, version: str, entry_points: dict[str, str], modules: dict[str, str]
) -> None:
    """Write ``<dist>-<version>.dist-info`` and the given modules into ``site``."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[harness]\n{lines}", encoding="utf-8")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source, encoding="utf-8")


@pytest.fixture
def broken_site(tmp_path: Path) -> Path:
    install_fake_distribution(
        tmp_path,
        dist="broken-plugin",
        version="0.1",
        entry_points={"broken": "broken_plugin_mod"},
        modules={"broken_plugin_mod": 'raise RuntimeError("this plugin is broken on purpose")\n'},
    )
    return tmp_path


def plugins_by_name(stdout: str) -> dict[str, dict[str, Any]]:
    document = json.loads(stdout)
    return {record["name"]: record for record in document["plugins"]}


# -- harness plugins ----------------------------------------------------------------------


def test_plugins_json_lists_core_defaults_and_the_git_tool_pack() -> None:
    result = run_harness("plugins", "--json")
    assert result.returncode == 0, result.stderr
    records = plugins_by_name(result.stdout)
    for core in ("permission-mode", "tool-approval", "default-executor", "default-projection"):
        assert records[core]["kind"] == "core"
        assert records[core]["distribution"] == "harness-agent-core"
        assert records[core]["status"] == "loaded"
    git = records["tools-git"]
    assert (git["distribution"], git["kind"], git["hooks"], git["status"]) == (
        "harness-tools-git",
        "tools",
        ["harness_tools"],
        "loaded",
    )
    assert git["version"] and git["version"][0].isdigit()
    assert git["value"] == "harness_tools_git.plugin"


def test_a_broken_installed_plugin_is_listed_as_failed_and_the_command_still_works(
    broken_site: Path,
) -> None:
    result = run_harness("plugins", "--json", extra_path=broken_site)
    assert result.returncode == 1, result.stderr  # a failed plugin: listed, then exit 1
    records = plugins_by_name(result.stdout)  # stdout is pure JSON: no warning text in it
    broken = records["broken"]
    assert broken["status"] == "failed"
    assert (broken["distribution"], broken["version"]) == ("broken-plugin", "0.1")
    assert broken["error"].startswith(
        "import failed: RuntimeError: this plugin is broken on purpose (at "
    )
    assert broken["error"].endswith("broken_plugin_mod.py:1)"), broken["error"]
    assert records["tools-git"]["status"] == "loaded"
    assert "Traceback" not in result.stderr


def test_plugins_table_shows_failures_with_their_error(broken_site: Path) -> None:
    result = run_harness("plugins", extra_path=broken_site)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "PluginLoadWarning" not in out
    row = next(line for line in out.splitlines() if "broken" in line and "failed" in line)
    assert "broken-plugin 0.1" in row
    assert "this plugin is broken on purpose" in out
    git_row = next(line for line in out.splitlines() if "tools-git" in line)
    assert "harness-tools-git" in git_row and "tools" in git_row and "loaded" in git_row
    summary = out.strip().splitlines()[-1]
    assert summary.endswith(" failed") and " 0 failed" not in summary


def test_plugins_listing_does_not_repeat_failures_as_warnings(broken_site: Path) -> None:
    result = run_harness("plugins", extra_path=broken_site)
    assert result.returncode == 1
    assert "PluginLoadWarning" not in result.stderr


def test_strict_mode_turns_the_broken_plugin_into_an_error_without_traceback(
    broken_site: Path,
) -> None:
    result = run_harness("plugins", extra_path=broken_site, env={"HARNESS_STRICT_PLUGINS": "1"})
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(
        "harness: error: plugin 'broken' from distribution broken-plugin 0.1"
    )
    assert "RuntimeError: this plugin is broken on purpose" in result.stderr
    assert "Traceback" not in result.stderr


def test_debug_shows_the_traceback(broken_site: Path) -> None:
    result = run_harness(
        "--debug", "plugins", extra_path=broken_site, env={"HARNESS_STRICT_PLUGINS": "1"}
    )
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert "PluginLoadError" in result.stderr


def test_disabled_plugin_is_listed_as_disabled_and_not_imported(broken_site: Path) -> None:
    result = run_harness(
        "plugins",
        "--json",
        extra_path=broken_site,
        env={"HARNESS_DISABLE_PLUGINS": "broken,permission-mode"},
    )
    assert result.returncode == 0, result.stderr
    records = plugins_by_name(result.stdout)
    assert records["broken"]["status"] == "disabled"
    assert records["broken"]["error"] is None
    assert records["permission-mode"]["status"] == "disabled"
    assert "broken" not in result.stderr  # never imported, so nothing to warn about


def test_usage_error_exits_with_2() -> None:
    result = run_harness("plugins", "--no-such-option")
    assert result.returncode == 2
    assert "No such option" in result.stderr


# -- harness tools ------------------------------------------------------------------------


def test_tools_json_lists_host_tools_with_pack_read_only_flag_and_schema() -> None:
    result = run_harness("tools", "--json")
    assert result.returncode == 0, result.stderr
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    assert {"git_status", "git_diff", "git_log"} <= set(tools)
    diff = tools["git_diff"]
    assert (diff["pack"], diff["distribution"], diff["read_only"]) == (
        "tools-git",
        "harness-tools-git",
        True,
    )
    assert diff["input_schema"]["type"] == "object"
    assert set(diff["input_schema"]["properties"]) == {"path", "staged"}
    assert diff["description"]


def test_tools_table() -> None:
    result = run_harness("tools")
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if "git_log" in line)
    assert "tools-git" in row and "yes" in row
    assert "max_count: integer (1..100)" in result.stdout


CONFLICT_PACK = """
from harness_core import define_harness_tool, hookimpl

@hookimpl
def harness_tools():
    return [define_harness_tool(name="git_status", description="Shadow.", input={"type": "object"})]
"""


def test_a_tool_name_two_packs_contribute_is_an_error_naming_both(tmp_path: Path) -> None:
    install_fake_distribution(
        tmp_path,
        dist="shadow-pack",
        version="9.9",
        entry_points={"shadow": "shadow_pack"},
        modules={"shadow_pack": CONFLICT_PACK},
    )
    result = run_harness("tools", extra_path=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "harness: error: tool 'git_status' is contributed by both plugin" in result.stderr
    assert "'tools-git' (harness-tools-git" in result.stderr
    assert "'shadow' (shadow-pack 9.9)" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    # The plugin listing still works: a conflict is not a load failure.
    assert run_harness("plugins", "--json", extra_path=tmp_path).returncode == 0


def test_plugins_reports_a_tool_name_conflict(tmp_path: Path) -> None:
    install_fake_distribution(
        tmp_path,
        dist="shadow-pack",
        version="9.9",
        entry_points={"shadow": "shadow_pack"},
        modules={"shadow_pack": CONFLICT_PACK},
    )
    result = run_harness("plugins", "--json", extra_path=tmp_path)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    (conflict,) = document["conflicts"]
    assert (conflict["kind"], conflict["name"], conflict["plugins"]) == (
        "tool",
        "git_status",
        ["shadow", "tools-git"],
    )
    assert "tool 'git_status' is contributed by plugins" in conflict["message"]
    records = plugins_by_name(result.stdout)
    assert records["shadow"]["status"] == records["tools-git"]["status"] == "loaded"
    assert (
        records["shadow"]["problems"] == records["tools-git"]["problems"] == [conflict["message"]]
    )
    assert records["tool-approval"]["problems"] == []

    table = run_harness("plugins", extra_path=tmp_path)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.strip().splitlines()
    assert lines[-1].endswith("0 failed, 1 conflict(s)")
    assert f"conflict: {conflict['message']}" in lines[-2]
    shadow_row = lines.index(next(line for line in lines if "shadow-pack 9.9" in line))
    assert "conflict: tool 'git_status'" in "\n".join(lines[shadow_row : shadow_row + 3])


def test_plugins_without_conflicts_reports_none() -> None:
    result = run_harness("plugins", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["conflicts"] == []
    assert all(record["problems"] == [] for record in document["plugins"])
    table = run_harness("plugins")
    assert "conflict" not in table.stdout


FLAKY_PACK = """
import os
from harness_core import define_harness_tool, hookimpl

@hookimpl
def harness_tools():
    if os.environ.get("FLAKY_LOADED"):
        raise OSError("tool index unreadable")
    os.environ["FLAKY_LOADED"] = "1"
    return [define_harness_tool(name="flaky_tool", description="Flaky.", input={"type": "object"})]
"""


def test_tools_names_every_failed_plugin_on_stderr_and_exits_1(broken_site: Path) -> None:
    install_fake_distribution(
        broken_site,
        dist="flaky-pack",
        version="1.0",
        entry_points={"flaky": "flaky_pack"},
        modules={"flaky_pack": FLAKY_PACK},
    )
    result = run_harness("tools", "--json", extra_path=broken_site)
    assert result.returncode == 1
    names = {tool["name"] for tool in json.loads(result.stdout)["tools"]}
    assert "git_status" in names and "flaky_tool" not in names  # the good packs still listed
    lines = result.stderr.strip().splitlines()
    assert (
        "harness: plugin 'broken' (broken-plugin 0.1) failed: import failed: RuntimeError: this plugin is broken"
        in lines[0]
    )
    assert (
        "plugin 'flaky' (flaky-pack 1.0) failed: plugin 'flaky' failed in harness_tools: OSError: tool index"
        in lines[1]
    )
    assert len(lines) == 2 and "Traceback" not in result.stderr

    listing = run_harness("plugins", extra_path=broken_site)
    assert listing.returncode == 1
    assert "harness: plugin 'broken' (broken-plugin 0.1) failed" in listing.stderr


def test_tools_without_failures_exits_0() -> None:
    result = run_harness("tools", "--json")
    assert result.returncode == 0 and result.stderr == ""
