"""Rule syntax and rules files: what parses, what is refused, and where errors point."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from harness_rules import (
    RuleOrigin,
    RulesFileError,
    RuleSyntaxError,
    compile_command_pattern,
    discover_rule_files,
    load_rules_file,
    parse_rule,
    parse_rules_text,
    rules_from_mapping,
    user_rules_path,
)

if TYPE_CHECKING:
    from conftest import Layout

ORIGIN = RuleOrigin("code", "<code>")

# (rule, kind, canonical key)
VALID = [
    ("bash", "name", "bash"),
    ("Bash", "name", "bash"),
    ("bash(git status)", "command", "bash"),
    ("Bash(npm run test:*)", "command", "bash"),
    ("exec_command(git diff *)", "command", "bash"),
    ("shell(ls)", "command", "bash"),
    ("read(./src/**)", "path", "read"),
    ("Read(~/.ssh/**)", "path", "read"),
    ("edit(//etc/**)", "path", "edit"),
    ("read(~root/.ssh/**)", "path", "read"),
    ("apply_patch(src/*.py)", "path", "edit"),
    ("grep(*.env)", "path", "grep"),
    ("webSearch", "name", "webSearch"),
    ("WebFetch", "name", "WebFetch"),
    ("mcp__github", "name", "mcp__github"),
    ("mcp__github__create_issue", "name", "mcp__github__create_issue"),
    ("mcp__github__*", "name", "mcp__github__*"),
    ("*", "name", "*"),
    ("my_tool(./data/**)", "any", "my_tool"),
    ("mcp__fs__read_file(./secrets/**)", "any", "mcp__fs__read_file"),
    ("  read(./x)  ", "path", "read"),
]

# (rule, fragment of the error)
INVALID = [
    ("", "empty rule"),
    ("   ", "empty rule"),
    ("bash()", "empty specifier"),
    ("bash(  )", "empty specifier"),
    ("read(./x", "unbalanced parentheses"),
    ("read./x)", "unbalanced parentheses"),
    ("read(./x) ", None),  # trailing spaces are stripped: valid
    ("re ad(./x)", "not a tool name"),
    ("(./x)", "not a tool name"),
    ("read(//)", "can match nothing"),
    ("read(~)", "can match nothing"),
    ("read(.)", "can match nothing"),
    ("read(./)", "can match nothing"),
    ("read(/etc/passwd)", "ambiguous"),
    ("read(!./x)", "negation"),
    ("read([abc)", "can match nothing"),
    ("read(*/../x)", "after a wildcard"),
    ("read(~nosuchuser12345/x)", "unknown user"),
    ("read(~root)", "can match nothing"),
    ("bash(//usr/bin/x)", "looks like a path pattern"),
    ("bash(./src/**)", "looks like a path pattern"),
    ("bash(~/bin/)", "looks like a path pattern"),
    ("bash(git add * && git commit *)", "shell operator"),
    ("bash(ls | wc)", "shell operator"),
    ("bash(echo hi > out.txt)", "shell operator"),
    ("bash(echo $(id))", "command substitution"),
    ("bash(echo `id`)", "command substitution"),
    ("bash(echo 'unterminated)", "unbalanced quotes"),
    ("bash(\"\")", "empty after removing quotes"),
    ("webSearch(cats)", "can match nothing"),
    ("mcp__(x)", "MCP names"),
    ("mcp__srv__", "MCP names"),
]


@pytest.mark.parametrize(("text", "kind", "key"), VALID, ids=[v[0] for v in VALID])
def test_valid_rules(text: str, kind: str, key: str) -> None:
    rule = parse_rule(text, "allow", ORIGIN)
    assert rule.kind.value == kind
    assert rule.key == key
    assert rule.text == text.strip()


@pytest.mark.parametrize(("text", "fragment"), INVALID, ids=[v[0] or "<empty>" for v in INVALID])
def test_invalid_rules(text: str, fragment: str | None) -> None:
    if fragment is None:
        parse_rule(text, "deny", ORIGIN)
        return
    with pytest.raises(RuleSyntaxError, match=None) as info:
        parse_rule(text, "deny", ORIGIN)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [
        ("git status", "git status", True),
        ("git status", "git status --short", False),
        ("git status *", "git status", True),
        ("git status *", "git status --short", True),
        ("git status *", "git statusx", False),
        ("git status:*", "git status -s", True),
        ("git status*", "git statusx", True),
        ("npm run *", "npm run test -- --watch", True),
        ("* --version", "node --version", True),
        ("* --version", "--version", False),
        ("git commit -m *", "git commit -m fix it", True),
        ('git commit -m "wip"', "git commit -m wip", True),
        ("rm -rf *", "rm -rf", True),
        ("*", "anything at all", True),
        ("echo a*b", "echo aXXb", True),
        ("echo a*b", "echo aXXbc", False),
    ],
)
def test_command_pattern_matching(pattern: str, command: str, expected: bool) -> None:
    assert compile_command_pattern(pattern).matches(command) is expected


def test_unknown_arguments_match_only_wildcards() -> None:
    assert compile_command_pattern("grep *").matches("grep foo \x00")
    assert not compile_command_pattern("grep foo").matches("grep foo \x00")
    # for denials, an unknown argument may be anything
    assert compile_command_pattern("rm -rf /").may_match("rm -rf \x00")
    assert not compile_command_pattern("rm -rf /").may_match("ls \x00")


# -- files -----------------------------------------------------------------------------

GOOD = """\
# project rules
[permissions]
allow = [
  "bash(git status)",   # read-only git
  'read(./src/**)',
]
ask = ["bash(git push *)"]

deny  = ["read(./.env)", \"\"\"bash(rm *)\"\"\",
   "read(./secrets/**)"]
"""


def test_lines_of_every_rule(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(GOOD)
    layer = load_rules_file(path, "project")
    assert [(r.action.value, r.text, r.origin.line) for r in layer.rules] == [
        ("allow", "bash(git status)", 4),
        ("allow", "read(./src/**)", 5),
        ("ask", "bash(git push *)", 7),
        ("deny", "read(./.env)", 9),
        ("deny", "bash(rm *)", 9),
        ("deny", "read(./secrets/**)", 10),
    ]
    assert all(r.origin.source == str(path) and r.origin.layer == "project" for r in layer.rules)


def test_same_rule_text_in_two_arrays_gets_each_line() -> None:
    text = '[permissions]\nallow = ["bash(ls)"]\n\ndeny = [\n  "bash(ls)",\n]\n'
    layer = parse_rules_text(text, "r.toml", "project")
    assert [(r.action.value, r.origin.line) for r in layer.rules] == [("allow", 2), ("deny", 5)]


def test_dotted_and_inline_tables() -> None:
    dotted = parse_rules_text('permissions.deny = ["bash(rm *)"]\n', "a.toml", "user")
    assert [(r.text, r.origin.line) for r in dotted.rules] == [("bash(rm *)", 1)]
    inline = parse_rules_text('\npermissions = { allow = ["bash(ls)"] }\n', "b.toml", "user")
    assert [(r.text, r.origin.line) for r in inline.rules] == [("bash(ls)", 2)]


# (file text, expected line, fragment)
BAD_FILES = [
    ("[permissions]\nallow = [\"bash(\"]\n", 2, "unbalanced parentheses"),
    ("[permissions]\nallow = []\nalow = []\n", 3, "unknown key 'alow'"),
    ("[perms]\nallow = []\n", 1, "unknown table 'perms'"),
    ("version = 2\n[permissions]\n", 1, "unknown key 'version'"),
    ("[permissions]\nallow = \"bash(ls)\"\n", 2, "must be an array"),
    ("[permissions]\n\ndeny = [1, 2]\n", 3, "must be an array"),
    ("[permissions.extra]\nx = 1\n", 1, "unknown key 'extra'"),
    ("[permissions]\nallow = [\n  \"bash(ls)\",\n  \"read(//)\",\n]\n", 4, "can match nothing"),
    ("[permissions]\nallow = [\"bash(ls)\"\n", 3, "TOML syntax error"),
    ("[permissions]\nallow = = []\n", 2, "TOML syntax error"),
    ("[permissions]\nask = [\"bash(a && b)\"]\n", 2, "shell operator"),
    ("[permissions]\ndeny = [\"read(/etc/shadow)\"]\n", 2, "ambiguous"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), BAD_FILES, ids=[b[2] + str(i) for i, b in enumerate(BAD_FILES)])
def test_bad_files_report_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    with pytest.raises(RulesFileError) as info:
        load_rules_file(path, "project")
    assert info.value.source == str(path)
    assert info.value.line == line
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(RulesFileError, match="no such rules file"):
        load_rules_file(tmp_path / "nope.toml")
    assert load_rules_file(tmp_path / "nope.toml", "local", missing_ok=True).exists is False
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe[permissions]")
    with pytest.raises(RulesFileError, match="not UTF-8"):
        load_rules_file(binary)
    directory = tmp_path / "dir.toml"
    directory.mkdir()
    with pytest.raises(RulesFileError, match="cannot read"):
        load_rules_file(directory)


def test_empty_files_and_tables_are_fine(tmp_path: Path) -> None:
    assert parse_rules_text("", "e.toml", "user").rules == ()
    assert parse_rules_text("[permissions]\n", "e.toml", "user").rules == ()
    assert parse_rules_text("# only a comment\n", "e.toml", "user").rules == ()


def test_rules_passed_in_code() -> None:
    layer = rules_from_mapping({"allow": ["bash(ls)"], "deny": ["read(./.env)"]})
    assert [(r.action.value, r.origin.source, r.origin.layer) for r in layer.rules] == [
        ("allow", "<code>", "code"), ("deny", "<code>", "code"),
    ]
    with pytest.raises(RulesFileError, match=r"<code>: deny\[1\]: rule 'read\(//\)'"):
        rules_from_mapping({"deny": ["bash(rm *)", "read(//)"]})
    with pytest.raises(RulesFileError, match="unknown key 'alow'"):
        rules_from_mapping({"alow": ["bash(ls)"]})
    with pytest.raises(RulesFileError, match="must be a list"):
        rules_from_mapping({"allow": "bash(ls)"})
    with pytest.raises(RulesFileError, match="must be a string"):
        rules_from_mapping({"allow": [42]})  # type: ignore[list-item]


def test_layer_paths_honour_xdg_config_home(layout: Layout) -> None:
    assert user_rules_path({"HOME": "/h"}) == Path("/h/.config/harness/rules.toml")
    assert user_rules_path({"HOME": "/h", "XDG_CONFIG_HOME": "/x"}) == Path("/x/harness/rules.toml")
    assert user_rules_path({"HOME": "/h", "XDG_CONFIG_HOME": "relative"}) == Path("/h/.config/harness/rules.toml")
    found = dict(discover_rule_files(layout.ws, layout.env))
    assert found == {
        "user": layout.home / ".config" / "harness" / "rules.toml",
        "project": layout.ws / ".harness" / "rules.toml",
        "local": layout.ws / ".harness" / "rules.local.toml",
    }
    assert os.fspath(found["user"]).startswith(str(layout.home))
