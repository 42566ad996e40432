"""Shell commands that read a whole directory tree are judged against the denied paths
inside it (issue 15): ``grep -r x .`` with ``.env`` denied is denied, through symlinks
inside the tree, ``..``, absolute paths, ``cd``, wrappers and nested shells; the tree
commands of a clean directory stay allowed. Also ``GLOBIGNORE``, which makes ``*`` match
hidden files.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Layout

ALLOW = ["bash(grep *)", "bash(egrep *)", "bash(rg *)", "bash(cat *)", "bash(cp *)", "bash(tar *)", "bash(rsync *)",
         "bash(zip *)", "bash(git grep *)", "bash(git -C *)", "bash(cd *)", "bash(timeout *)", "bash(bash *)",
         "bash(export *)", "bash(GLOBIGNORE=*)", "bash(ls *)", "bash(find *)", "bash(diff *)"]


def _policy(layout: Layout, deny: list[str], **kwargs: object):  # type: ignore[no-untyped-def]
    return layout.policy({"allow": ALLOW, "deny": deny}, discover=False, **kwargs)


def _decide(layout: Layout, command: str, deny: list[str] | None = None, **kwargs: object) -> tuple[str, str]:
    policy = _policy(layout, deny if deny is not None else ["read(./.env)"], **kwargs)
    verdict = policy.check("bash", {"command": command}, workspace_root=layout.ws)
    return verdict.decision, verdict.reason


# ws/.env is denied; ws/src/env_link -> ../.env; ws/docs holds only readme.md
DENIED_TREES = [
    "grep -r secret .",
    "grep -rn TOKEN",  # no path: grep -r searches the working directory
    "grep -R TOKEN src",  # src/env_link -> ../.env
    "grep -ri --include='*.py' TOKEN src",
    "egrep -r TOKEN .",
    "grep --recursive x .",
    "grep -d recurse x .",
    "grep --directories=recurse x .",
    "grep -r x docs src",  # the second operand holds the link
    "grep -r -e x -- src",
    "grep -r x src/..",  # `..` back to the root
    "grep -r x ./docs/../src",
    "cd src && grep -r x ..",  # relative to the directory `cd` went to
    "cd docs; grep -r x ../src",
    "rg TOKEN",  # rg reads the working directory by default
    "rg TOKEN src",
    "rg -g '*.py' TOKEN",  # a valued option before the pattern
    "rg --type py TOKEN",
    "rg -e TOKEN -e x",
    "git grep TOKEN",
    "cp -r . /tmp/elsewhere",
    "cp -a src /tmp/elsewhere",
    "tar czf /tmp/out.tgz .",
    "tar -c -f /tmp/out.tar src",
    "tar --create --file=/tmp/out.tar .",
    "tar rf /tmp/out.tar .",
    "rsync -a src /tmp/elsewhere",
    "zip -r /tmp/out.zip .",
    "diff -r src docs",
    "timeout 5 grep -r x .",  # through a wrapper
    "bash -c 'grep -r x .'",  # through a nested shell
    "bash -c \"cd src && rg x\"",
    "busybox grep -r x .",  # an applet
    "\\grep -r x .",  # quoting or a path does not change the command
    "/usr/bin/grep -r x ./",
    "g''rep -r x .",
    "grep x . -r",  # options after the operands, as GNU getopt reads them
    "sh -c \"$(echo grep -r x .)\"",  # a substitution of fixed text
]


@pytest.mark.parametrize("command", DENIED_TREES)
def test_a_tree_holding_a_denied_path_is_denied(layout: Layout, command: str) -> None:
    decision, reason = _decide(layout, command)
    assert decision == "deny", reason
    assert "read(./.env)" in reason


def test_an_absolute_tree_is_walked(layout: Layout) -> None:
    decision, reason = _decide(layout, f"grep -r x {layout.ws}")
    assert decision == "deny", reason
    decision, reason = _decide(layout, f"rg x {layout.ws / 'src'}")
    assert decision == "deny", reason


def test_a_symlink_inside_the_tree_pointing_outside_is_followed(layout: Layout) -> None:
    # src/out_link -> <outside>/secret.txt; src/outdir_link -> <outside>/dir
    decision, reason = _decide(layout, "grep -r x src", deny=[f"read(/{layout.outside}/secret.txt)"])
    assert decision == "deny", reason
    decision, reason = _decide(layout, "rg x src", deny=[f"read(/{layout.outside}/dir/**)"])
    assert decision == "deny", reason


def test_the_home_directory_tree_is_walked(layout: Layout) -> None:
    decision, reason = _decide(layout, "grep -r x ~", deny=["read(~/.ssh/**)"])
    assert decision == "deny", reason


def test_a_denied_subtree_inside_the_tree_is_found(layout: Layout) -> None:
    decision, reason = _decide(layout, "grep -r BEGIN .", deny=["read(./secrets/**)"])
    assert decision == "deny", reason


CLEAN = [
    "grep -r x docs",
    "grep x src",  # not recursive: grep skips a directory operand
    "grep -r x docs/readme.md",
    "rg x docs",
    "rg -t md x docs",
    "grep -r -e x -- docs",
    "cp -r docs /tmp/elsewhere",
    "cp src/a.py /tmp/elsewhere",  # not recursive
    "ls -R",  # lists names, reads no file
    "find . -name '*.py'",
    "tar czf /tmp/out.tgz docs",
    "tar xzf /tmp/in.tgz -C out",  # extracting reads the archive, not a tree
    "tar -tf /tmp/in.tar",
]


@pytest.mark.parametrize("command", CLEAN)
def test_a_clean_tree_or_a_non_recursive_command_stays_allowed(layout: Layout, command: str) -> None:
    decision, reason = _decide(layout, command)
    assert decision == "allow", reason


def test_a_symlink_loop_inside_the_tree_ends_the_walk(layout: Layout) -> None:
    os.symlink(".", layout.ws / "docs" / "loop")
    assert _decide(layout, "grep -r x docs")[0] == "allow"
    os.symlink("../.env", layout.ws / "docs" / "env2")
    assert _decide(layout, "grep -r x docs")[0] == "deny"


def test_a_tree_too_large_to_walk_is_asked_about(layout: Layout) -> None:
    for i in range(30):
        (layout.ws / "docs" / f"page{i}.md").write_text("x\n")
    decision, reason = _decide(layout, "grep -r x docs", search_limit=10)
    assert decision == "ask", reason


@pytest.mark.parametrize("command", [
    "tar -C {outside} -czf /tmp/out.tgz dir",  # operands read from another directory
    "tar czf /tmp/out.tgz --directory {outside} dir",
    "git -C {outside} grep x",
])
def test_a_directory_change_of_a_tree_reader_is_asked_about(layout: Layout, command: str) -> None:
    decision, reason = _decide(layout, command.format(outside=layout.outside))
    assert decision == "ask", reason


def test_a_tree_reader_of_the_file_system_root_is_not_allowed(layout: Layout) -> None:
    decision, reason = _decide(layout, "grep -r x /", search_limit=1000)
    assert decision in ("ask", "deny"), reason


@pytest.mark.parametrize("command", [
    "GLOBIGNORE=x; cat *",  # bash then matches hidden files with `*`: `.env`
    "export \"GLOB\"\"IGNORE=x\"; cat *",
    "GLOBIGNORE=x bash -c 'cat *'",
])
def test_globignore_is_never_allowed(layout: Layout, command: str) -> None:
    decision, reason = _decide(layout, command)
    assert decision in ("ask", "deny"), reason
    assert decision == "ask", reason


def test_guard_opt_out_leaves_trees_alone(layout: Layout) -> None:
    decision, reason = _decide(layout, "grep -r x .", guard_arguments=False)
    assert decision == "allow", reason
