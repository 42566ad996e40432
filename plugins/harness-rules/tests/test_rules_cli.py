"""``harness rules check`` and ``harness rules list``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from harness_rules.cli import rules

if TYPE_CHECKING:
    from conftest import Layout

PROJECT = """\
[permissions]
allow = ["bash(git status)", "read(./src/**)"]
ask = ["bash(git push *)"]
deny = [
  "read(./.env)",
  "bash(rm *)",
]
"""


@pytest.fixture
def project(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> Layout:
    (layout.ws / ".harness" / "rules.toml").write_text(PROJECT)
    for name, value in layout.env.items():
        monkeypatch.setenv(name, value)
    return layout


def _run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(rules, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("tool", "tool_input", "decision", "rule", "line"),
    [
        ("bash", {"command": "git status"}, "allow", "bash(git status)", 2),
        ("bash", {"command": "git status && rm -rf /"}, "deny", "bash(rm *)", 6),
        ("Bash", {"command": "git push origin"}, "ask", "bash(git push *)", 3),
        ("read", {"file_path": "src/../.env"}, "deny", "read(./.env)", 5),
        ("Read", {"file_path": "src/a.py"}, "allow", "read(./src/**)", 2),
        ("grep", {"pattern": "TOKEN", "path": "."}, "deny", "read(./.env)", 5),
        ("bash", {"command": "make"}, "none", None, None),
        ("mcp__srv__tool", {}, "none", None, None),
    ],
)
def test_check_json(project: Layout, tool: str, tool_input: dict[str, object], decision: str, rule: str | None,
                    line: int | None) -> None:
    code, out, err = _run("check", tool, json.dumps(tool_input), "--cwd", str(project.ws), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {"decision", "rule", "source", "reason"} <= set(data)
    assert (data["decision"], data["rule"], data["line"]) == (decision, rule, line)
    if rule is not None:
        assert data["source"] == str(project.ws / ".harness" / "rules.toml")
        assert data["layer"] == "project"
    assert data["reason"]


def test_check_text(project: Layout) -> None:
    code, out, _ = _run("check", "bash", '{"command": "ls; rm -rf build"}', "--cwd", str(project.ws))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "decision: deny"
    assert lines[1] == "rule:     bash(rm *)"
    assert lines[2] == f"source:   {project.ws / '.harness' / 'rules.toml'}:6 (project layer)"
    assert lines[3].startswith("reason:   Denied by permission rule `bash(rm *)`")
    assert "rm -rf build" in lines[3]


def test_check_with_mode_shows_the_merged_decision(project: Layout) -> None:
    code, out, _ = _run("check", "bash", '{"command": "make"}', "--cwd", str(project.ws), "--mode", "allow-reads",
                        "--json")
    assert code == 0
    data = json.loads(out)
    assert data["decision"] == "none"
    assert data["merged"]["status"] == "user-approval" and data["merged"]["plugin"] == "permission-mode"
    code, out, _ = _run("check", "bash", '{"command": "git status"}', "--cwd", str(project.ws), "--mode",
                        "allow-reads")
    assert "merged:   approved under allow-reads (plugin rules)" in out


def test_rules_option_uses_only_the_given_files(project: Layout, tmp_path: Path) -> None:
    only = tmp_path / "only.toml"
    only.write_text('[permissions]\nallow = ["bash(rm *)"]\n')
    code, out, _ = _run("check", "bash", '{"command": "rm x"}', "--cwd", str(project.ws), "--rules", str(only),
                        "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["decision"], data["source"], data["line"], data["layer"]) == ("allow", str(only), 2, "file")
    code, out, _ = _run("check", "bash", '{"command": "rm x"}', "--cwd", str(project.ws), "--rules", str(only),
                        "--mode", "allow-reads", "--json")
    assert json.loads(out)["merged"]["status"] == "approved"


def test_bad_rules_file_exits_1_with_file_and_line(project: Layout, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[permissions]\nallow = [\n  "bash(git status)",\n  "bash(",\n]\n')
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--rules", str(bad))
    assert code == 1
    assert f"{bad}:4: rule 'bash(': unbalanced parentheses" in err
    (project.ws / ".harness" / "rules.local.toml").write_text("[permissions]\nallow = [\"read(/x)\"]\n")
    code, _, err = _run("check", "read", '{"file_path": "x"}', "--cwd", str(project.ws))
    assert code == 1 and "rules.local.toml:2:" in err and "ambiguous" in err
    code, _, err = _run("list", "--cwd", str(project.ws))
    assert code == 1 and "rules.local.toml:2:" in err


def test_usage_errors_exit_2(project: Layout, tmp_path: Path) -> None:
    assert _run("check", "bash", "{not json")[0] == 2
    assert _run("check", "bash")[0] == 2
    assert _run("check", "bash", '{"command": "ls"}', "--mode", "yolo")[0] == 2
    assert _run("check", "bash", '{"command": "ls"}', "--cwd", str(tmp_path / "missing"))[0] == 2
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--rules", str(tmp_path / "missing.toml"))
    assert code == 1 and err == f"harness: error: {tmp_path / 'missing.toml'}: no such rules file\n"


def test_input_from_stdin(project: Layout) -> None:
    code, out, _ = _run("check", "bash", "-", "--cwd", str(project.ws), "--json", input='{"command": "rm -rf /"}')
    assert code == 0 and json.loads(out)["decision"] == "deny"


def test_list_by_layer(project: Layout) -> None:
    code, out, _ = _run("list", "--cwd", str(project.ws))
    assert code == 0
    assert out.splitlines() == [
        f"workspace root: {project.ws}",
        f"user: {project.home / '.config' / 'harness' / 'rules.toml'} (not found)",
        f"project: {project.ws / '.harness' / 'rules.toml'}",
        "     2  allow  bash(git status)",
        "     2  allow  read(./src/**)",
        "     3  ask    bash(git push *)",
        "     5  deny   read(./.env)",
        "     6  deny   bash(rm *)",
        f"local: {project.ws / '.harness' / 'rules.local.toml'} (not found)",
    ]
    code, out, _ = _run("list", "--cwd", str(project.ws), "--json")
    data = json.loads(out)
    assert [layer["layer"] for layer in data["layers"]] == ["user", "project", "local"]
    assert data["layers"][1]["rules"][4] == {"action": "deny", "rule": "bash(rm *)", "line": 6, "note": None}


def test_list_notes_tool_names_nothing_provides(project: Layout) -> None:
    (project.ws / ".harness" / "rules.local.toml").write_text(
        '[permissions]\ndeny = ["raed(./.env)", "mcp__x__y", "Bash(rm *)", "*"]\n')
    code, out, _ = _run("list", "--cwd", str(project.ws))
    assert code == 0
    assert "note: no installed built-in or host tool is named `raed`; did you mean `read`?" in out
    assert out.count("note:") == 1


def test_harness_option_uses_declared_builtins(project: Layout) -> None:
    pytest.importorskip("harness_builtin")
    code, out, err = _run("check", "bash", '{"command": "rm x"}', "--cwd", str(project.ws), "--harness", "builtin",
                          "--json")
    assert code == 0, err
    assert json.loads(out)["decision"] == "deny"
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--harness", "no-such-harness")
    assert code == 2 and "no-such-harness" in err


def test_the_harness_command_has_the_rules_group(project: Layout) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness_core.cli", "rules", "check", "read", '{"file_path": ".env"}', "--cwd",
         str(project.ws), "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decision"] == "deny"


def test_host_tools_from_installed_tool_packs(project: Layout, tmp_path: Path) -> None:
    pytest.importorskip("harness_tools_git")
    rules_file = tmp_path / "git.toml"
    rules_file.write_text('[permissions]\ndeny = ["git_diff(./.env)"]\nallow = ["git_diff(./src/**)"]\n')
    base = ("check", "git_diff")
    options = ("--cwd", str(project.ws), "--rules", str(rules_file), "--json")
    code, out, _ = _run(*base, '{"path": "src/sub"}', *options)
    assert code == 0 and json.loads(out)["decision"] == "allow"
    # src holds a symlink to .env
    code, out, _ = _run(*base, '{"path": "src"}', *options)
    assert code == 0 and json.loads(out)["decision"] == "deny"
    # no path: the whole repository, which holds the denied file
    code, out, _ = _run(*base, "{}", *options)
    assert code == 0 and json.loads(out)["decision"] == "deny"
    code, _, err = _run(*base, '{"bogus": 1}', *options)
    assert code == 2 and "git_diff" in err and "bogus" in err and err.startswith("Usage:")
