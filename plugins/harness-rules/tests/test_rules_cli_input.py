"""``harness rules check``: INPUT_JSON must be an object the tool's schema accepts, and
errors come out in the core command line's style."""

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

RULES = '[permissions]\ndeny = ["bash(rm *)", "read(./.env)"]\nallow = ["bash(git status)"]\n'


@pytest.fixture
def rules_file(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(RULES)
    return path


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(rules, list(args))
    return result.exit_code, result.stdout, result.stderr


# (INPUT_JSON, what the error names)
NOT_OBJECTS: list[tuple[str, str]] = [
    ('"rm -rf /"', "not a JSON string"),
    ("[1]", "not a JSON array"),
    ('["rm", "-rf", "/"]', "not a JSON array"),
    ("null", "not a JSON null"),
    ("1", "not a JSON number"),
    ("1.5", "not a JSON number"),
    ("true", "not a JSON boolean"),
    ("{not json", "not valid JSON"),
    ("", "not valid JSON"),
]


@pytest.mark.parametrize(("text", "named"), NOT_OBJECTS, ids=[t[0] or "empty" for t in NOT_OBJECTS])
def test_input_must_be_a_json_object(rules_file: Path, text: str, named: str) -> None:
    code, out, err = _run("check", "bash", text, "--rules", str(rules_file))
    assert code == 2, out
    assert out == ""
    assert err.startswith("Usage: ") and "Error: Invalid value for INPUT_JSON" in err
    assert named in err


# (tool, INPUT_JSON, text the error must hold)
SCHEMA_ERRORS: list[tuple[str, str, tuple[str, ...]]] = [
    ("bash", '{"commmand": "rm -rf /"}', ("`command`", "did you mean `command` instead of `commmand`")),
    ("bash", "{}", ("`command`", "it has no keys")),
    ("Bash", '{"command": 5}', ("`command` must be a string",)),
    ("bash", '{"command": ["rm", 5]}', ("`command` must be a string",)),
    ("exec_command", '{"cmdd": "rm x"}', ("`cmd`", "did you mean `cmd`")),
    ("read", '{"fil_path": ".env"}', ("`file_path`", "did you mean `file_path` instead of `fil_path`")),
    ("Read", "{}", ("`file_path`",)),
    ("write", '{"file_path": 3}', ("`file_path` must be a string",)),
    ("Edit", '{"content": "x"}', ("`file_path`",)),
    ("apply_patch", '{"patchh": "*** Begin Patch"}', ("`patch`", "did you mean `patch`")),
    ("grep", '{"path": "."}', ("`pattern`",)),
    ("Glob", '{"patern": "*.py"}', ("did you mean `pattern`",)),
    ("grep", '{"pattern": "x", "path": 1}', ("`path` must be a string",)),
]


@pytest.mark.parametrize(("tool", "text", "named"), SCHEMA_ERRORS, ids=[f"{t[0]}-{t[1]}" for t in SCHEMA_ERRORS])
def test_baseline_shapes_reject_inputs_the_tool_would(rules_file: Path, tool: str, text: str,
                                                      named: tuple[str, ...]) -> None:
    code, out, err = _run("check", tool, text, "--rules", str(rules_file))
    assert code == 2, out
    assert "Error: Invalid value for INPUT_JSON" in err
    for piece in named:
        assert piece in err, err
    assert "KeyError" not in err and "Traceback" not in err


GOOD_INPUTS: list[tuple[str, str, str]] = [
    ("bash", '{"command": "rm -rf /", "timeout": 5, "description": "x"}', "deny"),
    ("bash", '{"command": ["bash", "-lc", "rm x"]}', "deny"),
    ("exec_command", '{"cmd": "git status", "workdir": "."}', "allow"),
    ("Read", '{"file_path": ".env", "offset": 1}', "deny"),
    ("NotebookEdit", '{"notebook_path": "a.ipynb"}', "none"),
    ("ls", "{}", "deny"),  # pi's ls lists the workspace root, which holds .env
    ("webSearch", '{"query": "x"}', "none"),
    ("my_host_tool", '{"anything": 1}', "none"),  # unknown tools are matched by name
]


@pytest.mark.parametrize(("tool", "text", "decision"), GOOD_INPUTS, ids=[t[0] + "-" + t[1] for t in GOOD_INPUTS])
def test_well_formed_inputs_are_judged(layout: Layout, rules_file: Path, tool: str, text: str,
                                       decision: str) -> None:
    (layout.ws / ".git").mkdir(exist_ok=True)
    code, out, err = _run("check", tool, text, "--rules", str(rules_file), "--cwd", str(layout.ws), "--json")
    assert code == 0, err
    assert json.loads(out)["decision"] == decision


def test_declared_builtins_are_checked_against_their_schema(rules_file: Path) -> None:
    pytest.importorskip("harness_builtin")
    code, out, err = _run("check", "bash", '{"commmand": "rm x"}', "--rules", str(rules_file), "--harness", "builtin")
    assert code == 2, out
    assert "'command' is a required property" in err and "did you mean `command`" in err
    assert "KeyError" not in err and "extractor" not in err
    code, _, err = _run("check", "read", "{}", "--rules", str(rules_file), "--harness", "builtin")
    assert code == 2 and "'file_path' is a required property" in err
    code, _, err = _run("check", "bash", '{"command": 1}', "--rules", str(rules_file), "--harness", "builtin")
    assert code == 2 and "$.command" in err
    code, out, err = _run("check", "bash", '{"command": "rm x"}', "--rules", str(rules_file), "--harness", "builtin",
                          "--json")
    assert code == 0, err
    assert json.loads(out)["decision"] == "deny"


def test_runtime_errors_use_the_core_style(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[permissions]\nallow = [\n  "bash(",\n]\n')
    code, out, err = _run("check", "bash", '{"command": "ls"}', "--rules", str(bad))
    assert (code, out) == (1, "")
    assert err == f"harness: error: {bad}:3: rule 'bash(': unbalanced parentheses (missing the closing ')')\n"
    code, out, err = _run("list", "--rules", str(bad))
    assert code == 1 and err.startswith(f"harness: error: {bad}:3: ")
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--rules", str(tmp_path / "nope.toml"))
    assert code == 1 and err == f"harness: error: {tmp_path / 'nope.toml'}: no such rules file\n"


def test_usage_errors_use_clicks_style(rules_file: Path) -> None:
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--mode", "yolo", "--rules", str(rules_file))
    assert code == 2 and err.startswith("Usage: ") and "Error: Invalid value for '--mode'" in err
    code, _, err = _run("check", "bash", '{"command": "ls"}', "--bogus")
    assert code == 2 and err.startswith("Usage: ") and "No such option '--bogus'" in err


def test_the_harness_command_reports_both_kinds(rules_file: Path, tmp_path: Path) -> None:
    base = [sys.executable, "-m", "harness_core.cli", "rules", "check"]
    done = subprocess.run([*base, "bash", "[1]", "--rules", str(rules_file)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Usage: harness rules check") and "must be a JSON object" in done.stderr
    done = subprocess.run([*base, "bash", '{"command": "ls"}', "--rules", str(tmp_path / "missing.toml")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr == f"harness: error: {tmp_path / 'missing.toml'}: no such rules file\n"
