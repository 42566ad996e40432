"""Adversarial table: path spellings, symlinks, cross-tool rules, searches over denied paths."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from harness_rules import RulesPolicy

if TYPE_CHECKING:
    from conftest import Layout


def _rules(layout: Layout) -> dict[str, list[str]]:
    outside = layout.outside
    return {
        "allow": [
            "read(./src/**)",
            "read(./docs/**)",
            "read(~/notes/**)",
            f"read(/{outside}/dir/**)",
            "edit(./src/**)",
        ],
        "ask": ["read(./docs/private/**)"],
        "deny": [
            "read(./.env)",
            "read(./secrets/**)",
            "read(~/.ssh/**)",
            f"read(/{outside}/secret.txt)",
            "edit(./src/generated/**)",
        ],
    }


# (tool, input (with {ws}, {home}, {outside} placeholders), decision, deciding rule or None)
CASES: list[tuple[str, dict[str, Any], str, str | None]] = [
    # spellings of an allowed file
    ("read", {"file_path": "src/a.py"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "./src/a.py"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "{ws}/src/a.py"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "src/./sub/../a.py"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "src//sub///b.py"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "../ws/src/a.py"}, "allow", "read(./src/**)"),
    # spellings of a denied file
    ("read", {"file_path": ".env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "./.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "{ws}/.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "src/../.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "{ws}/src/sub/../../.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "../ws/.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "/{ws}/.env"}, "deny", "read(./.env)"),
    ("read", {"file_path": "secrets/key.pem"}, "deny", "read(./secrets/**)"),
    ("read", {"file_path": "src/../secrets/./key.pem"}, "deny", "read(./secrets/**)"),
    ("read", {"file_path": "secrets"}, "deny", "read(./secrets/**)"),
    ("read", {"file_path": "secrets/not-yet-created.pem"}, "deny", "read(./secrets/**)"),
    # symlinks inside and outside the workspace
    ("read", {"file_path": "src/env_link"}, "deny", "read(./.env)"),
    ("read", {"file_path": "src/out_link"}, "deny", "read(/{outside}/secret.txt)"),
    ("read", {"file_path": "src/outdir_link/data.txt"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "harmless_link"}, "none", None),
    ("read", {"file_path": "src/outdir_link/../secret.txt"}, "deny", "read(/{outside}/secret.txt)"),
    # home and absolute paths
    ("read", {"file_path": "~/notes/todo.txt"}, "allow", "read(~/notes/**)"),
    ("read", {"file_path": "{home}/notes/todo.txt"}, "allow", "read(~/notes/**)"),
    ("read", {"file_path": "~/.ssh/id_rsa"}, "deny", "read(~/.ssh/**)"),
    ("read", {"file_path": "{home}/.ssh/../.ssh/id_rsa"}, "deny", "read(~/.ssh/**)"),
    ("read", {"file_path": "{outside}/secret.txt"}, "deny", "read(/{outside}/secret.txt)"),
    ("read", {"file_path": "{outside}/dir/data.txt"}, "allow", "read(/{outside}/dir/**)"),
    ("read", {"file_path": "{outside}/other.txt"}, "none", None),
    ("read", {"file_path": "README.md"}, "none", None),
    # native names and other path keys
    ("Read", {"file_path": "src/a.py"}, "allow", "read(./src/**)"),
    ("read", {"path": "secrets/key.pem"}, "deny", "read(./secrets/**)"),
    ("NotebookEdit", {"notebook_path": "src/generated/n.ipynb"}, "deny", "edit(./src/generated/**)"),
    # cross-tool: a rule for one tool never matches a call of another
    ("edit", {"file_path": "src/a.py"}, "allow", "edit(./src/**)"),
    ("write", {"file_path": "src/new.py"}, "allow", "edit(./src/**)"),
    ("edit", {"file_path": "src/generated/x.py"}, "deny", "edit(./src/generated/**)"),
    ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/a.py\n*** Add File: src/generated/y.py\n"},
     "deny", "edit(./src/generated/**)"),
    ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/a.py\n*** End Patch\n"},
     "allow", "edit(./src/**)"),
    ("edit", {"file_path": ".env"}, "none", None),
    ("edit", {"file_path": "docs/readme.md"}, "none", None),
    ("read", {"file_path": "src/generated/x.py"}, "allow", "read(./src/**)"),
    ("bash", {"command": "ls src"}, "none", None),
    # grep and glob never reveal denied paths
    ("grep", {"pattern": "TOKEN", "path": "."}, "deny", "read(./.env)"),
    ("grep", {"pattern": "TOKEN"}, "deny", "read(./.env)"),
    ("grep", {"pattern": "TOKEN", "path": "{ws}"}, "deny", "read(./.env)"),
    ("grep", {"pattern": "KEY", "path": "secrets"}, "deny", "read(./secrets/**)"),
    ("grep", {"pattern": "x", "path": "src"}, "deny", "read(./.env)"),
    ("grep", {"pattern": "x", "path": "src/sub"}, "allow", "read(./src/**)"),
    ("grep", {"pattern": "x", "path": "docs"}, "ask", "read(./docs/private/**)"),
    ("grep", {"pattern": "x", "path": "/"}, "deny", None),
    ("grep", {"pattern": "x", "path": "~"}, "deny", "read(~/.ssh/**)"),
    ("grep", {"pattern": "x", "path": "{outside}"}, "deny", "read(/{outside}/secret.txt)"),
    ("grep", {"pattern": "x", "path": "{outside}/dir"}, "allow", "read(/{outside}/dir/**)"),
    ("Grep", {"pattern": "x", "path": "src/sub/.."}, "deny", "read(./.env)"),
    ("glob", {"pattern": "**/*.pem"}, "deny", "read(./.env)"),
    ("glob", {"pattern": "**/*.py", "path": "src/sub"}, "allow", "read(./src/**)"),
    ("glob", {"pattern": "src/sub/*.py"}, "allow", "read(./src/**)"),
    ("glob", {"pattern": "secrets/*"}, "deny", "read(./secrets/**)"),
    ("Glob", {"pattern": "*", "path": "src/outdir_link"}, "allow", "read(./src/**)"),
    ("read", {"file_path": "."}, "deny", "read(./.env)"),
    ("read", {"file_path": "~"}, "deny", "read(~/.ssh/**)"),
]


def _fill(value: Any, layout: Layout) -> Any:
    if isinstance(value, str):
        return value.format(ws=layout.ws, home=layout.home, outside=layout.outside)
    if isinstance(value, dict):
        return {k: _fill(v, layout) for k, v in value.items()}
    return value


@pytest.fixture
def docs_private(layout: Layout) -> Layout:
    (layout.ws / "docs" / "private").mkdir()
    (layout.ws / "docs" / "private" / "plan.md").write_text("plan\n")
    return layout


@pytest.mark.parametrize(("tool", "tool_input", "decision", "rule"), CASES,
                         ids=[f"{c[0]}-{next(iter(c[1].values()))}"[:60] for c in CASES])
def test_path_table(docs_private: Layout, tool: str, tool_input: dict[str, Any], decision: str,
                    rule: str | None) -> None:
    layout = docs_private
    verdict = layout.policy(_rules(layout)).check(tool, _fill(tool_input, layout), workspace_root=layout.ws)
    assert verdict.decision == decision, verdict.reason
    if rule is not None:
        assert verdict.rule is not None and verdict.rule.text == _fill(rule, layout), verdict.reason


def test_symlinked_workspace_root_matches_both_spellings(layout: Layout) -> None:
    alias = layout.base / "ws_alias"
    os.symlink(layout.ws, alias)
    policy = layout.policy(_rules(layout))
    for root in (alias, layout.ws):
        assert policy.check("read", {"file_path": f"{alias}/.env"}, workspace_root=root).decision == "deny"
        assert policy.check("read", {"file_path": f"{layout.ws}/.env"}, workspace_root=root).decision == "deny"
        assert policy.check("read", {"file_path": "src/a.py"}, workspace_root=root).decision == "allow"


def test_allow_needs_every_spelling(layout: Layout) -> None:
    # a link inside an allowed directory pointing at a file no rule allows
    os.symlink(layout.ws / "docs" / "readme.md", layout.ws / "src" / "docs_link")
    policy = layout.policy({"allow": ["read(./src/**)"]})
    verdict = policy.check("read", {"file_path": "src/docs_link"}, workspace_root=layout.ws)
    assert verdict.decision == "none"
    assert "docs/readme.md" in verdict.reason


def test_unanchored_patterns_match_at_any_depth(layout: Layout) -> None:
    (layout.ws / "src" / "sub" / "local.env").write_text("x")
    policy = layout.policy({"deny": ["read(*.env)"], "allow": ["read(./src/**)"]})
    assert policy.check("read", {"file_path": "src/sub/local.env"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("grep", {"pattern": "x", "path": "src/sub"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("read", {"file_path": "src/sub/b.py"}, workspace_root=layout.ws).decision == "allow"


def test_search_of_a_directory_without_denied_files_is_not_denied(layout: Layout) -> None:
    policy = layout.policy({"deny": ["read(*.env)"]})
    verdict = policy.check("grep", {"pattern": "x", "path": "docs"}, workspace_root=layout.ws)
    assert verdict.decision == "none"


def test_search_over_too_many_entries_asks(layout: Layout) -> None:
    big = layout.ws / "big"
    big.mkdir()
    for i in range(50):
        (big / f"f{i}.txt").write_text("x")
    policy = layout.policy({"deny": ["read(*.env)"]}, search_limit=20)
    verdict = policy.check("grep", {"pattern": "x", "path": "big"}, workspace_root=layout.ws)
    assert verdict.decision == "ask"
    assert "too many" in verdict.reason


def test_symlink_loop_under_a_search_root_terminates(layout: Layout) -> None:
    os.symlink("..", layout.ws / "src" / "sub" / "up")
    policy = layout.policy({"deny": ["read(**/*.pem)"]})
    verdict = policy.check("grep", {"pattern": "x", "path": "src"}, workspace_root=layout.ws)
    assert verdict.decision == "none"
    os.symlink(layout.ws / "secrets", layout.ws / "src" / "sub" / "keys")
    verdict = policy.check("grep", {"pattern": "x", "path": "src"}, workspace_root=layout.ws)
    assert verdict.decision == "deny"


def test_relative_patterns_follow_the_call_workspace_root(layout: Layout, tmp_path: Path) -> None:
    other = layout.base / "other"
    other.mkdir()
    (other / ".env").write_text("x")
    policy = RulesPolicy({"deny": ["read(./.env)"]}, env=layout.env)
    assert policy.check("read", {"file_path": f"{other}/.env"}, workspace_root=other).decision == "deny"
    assert policy.check("read", {"file_path": f"{other}/.env"}, workspace_root=layout.ws).decision == "none"


def test_leading_dotdot_patterns_anchor_above_the_root(layout: Layout) -> None:
    policy = layout.policy({"deny": ["read(../outside/**)"]})
    assert policy.check("read", {"file_path": "src/out_link"}, workspace_root=layout.ws).decision == "deny"
    assert policy.check("read", {"file_path": f"{layout.outside}/dir/data.txt"},
                        workspace_root=layout.ws).decision == "deny"


def test_wildcard_expansion_gives_what_glob_gives(tmp_path: Path) -> None:
    """``expand_glob`` (the judge's one-component fast path) against :func:`glob.glob` on
    hidden names, brackets, negations, unclosed brackets, symlinks and 3,000 random patterns."""
    import glob
    import random

    from harness_rules._judge_paths import expand_glob

    for name in [".env", ".env.x", "a.py", "b.py", "test_1.py", "test_12.py", "[x]", "x*y", ".hidden", "ab", "a?b",
                 "-dash", "ü.txt", "a.b.c", "A.PY"]:
        (tmp_path / name).write_text("")
    (tmp_path / "dir").mkdir()
    (tmp_path / "lnk").symlink_to(".env")
    rng = random.Random(5)
    patterns = ["*", "*.py", ".*", ".e*", "[ab].py", "[!a].py", "?.py", "[x]", "[", "[]", "**", "*/", ".", "..",
                "\\*", "[a-", "-*", "dir*", "l*", "nothing*"]
    patterns += ["".join(rng.choice("*?[]!.-a_ b1") for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    for pattern in patterns:
        assert expand_glob(pattern, str(tmp_path)) == glob.glob(pattern, root_dir=tmp_path), pattern
    assert expand_glob("*", str(tmp_path / "missing")) == []
