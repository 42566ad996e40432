"""bash, grep, glob and ls on a real workspace."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from harness_builtin.tools import format_command_result, glob_to_regex

pytestmark = pytest.mark.anyio


async def test_bash_reports_stdout_stderr_and_exit_code(call_tool, sandbox) -> None:
    out = await call_tool("bash", {"command": "echo hello; echo oops >&2; exit 2"})
    assert out.is_error
    assert out.content == "hello\n[stderr]\noops\n[exit code: 2]"
    ok = await call_tool("bash", {"command": "pwd"})
    assert not ok.is_error and ok.content == f"{sandbox.root}\n[exit code: 0]"


async def test_bash_timeout(call_tool) -> None:
    started = time.monotonic()
    out = await call_tool("bash", {"command": "echo begun; sleep 20", "timeout": 0.5})
    assert time.monotonic() - started < 10
    assert out.is_error
    assert out.content == "begun\n[timed out after 0.5 s; the command and its child processes were killed]"


async def test_bash_timeout_above_the_maximum_is_refused(call_tool) -> None:
    out = await call_tool("bash", {"command": "true", "timeout": 3000})
    assert out.is_error and "more than the allowed 600 s" in out.content


async def test_bash_output_is_cut_in_the_middle(call_tool) -> None:
    out = await call_tool("bash", {"command": "seq 1 20000"})
    assert out.content.startswith("1\n2\n3\n")
    assert "characters cut" in out.content
    assert out.content.endswith("19999\n20000\n[exit code: 0]")
    assert len(out.content) < 31_000


async def test_bash_undecodable_bytes_are_replaced(call_tool) -> None:
    out = await call_tool("bash", {"command": "printf 'a\\377b'"})
    assert out.content == "a\ufffdb\n[exit code: 0]"


async def test_bash_sees_no_host_secrets(call_tool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    out = await call_tool("bash", {"command": "env"})
    assert "sk-ant-secret" not in out.content


def test_format_command_result_without_output() -> None:
    assert format_command_result("", "", 0, False, 1, 100) == "[exit code: 0]"


async def test_bash_deadline_becomes_an_error_result(call_tool) -> None:
    out = await call_tool("bash", {"command": "sleep 10", "timeout": 30}, deadline=0.3)
    assert out.is_error and "deadline" in out.content


@pytest.fixture
def tree(workspace: Path) -> Path:
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "pkg" / "core.py").write_text("def add(a, b):\n    return a - b\n")
    (workspace / "src" / "pkg" / "util.py").write_text("# TODO: more\nVALUE = 3\n")
    (workspace / "src" / "main.ts").write_text("const add = 1; // TODO\n")
    (workspace / "README.md").write_text("Add numbers.\n")
    (workspace / "node_modules" / "dep").mkdir(parents=True)
    (workspace / "node_modules" / "dep" / "index.js").write_text("// TODO hidden\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text("TODO\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.py").write_text("# TODO generated\n")
    (workspace / ".gitignore").write_text("build/\n")
    (workspace / "blob.bin").write_bytes(b"TODO\0\0binary")
    return workspace


async def test_grep_finds_lines_and_skips_generated_and_binary(call_tool, tree: Path) -> None:
    out = await call_tool("grep", {"pattern": "TODO"})
    assert out.content.splitlines() == ["src/main.ts:1:const add = 1; // TODO", "src/pkg/util.py:1:# TODO: more"]


async def test_grep_path_glob_and_case(call_tool, tree: Path) -> None:
    py = await call_tool("grep", {"pattern": "todo", "glob": "*.py", "ignore_case": True})
    assert py.content == "src/pkg/util.py:1:# TODO: more"
    under = await call_tool("grep", {"pattern": r"def \w+\(", "path": "src/pkg"})
    assert under.content == "src/pkg/core.py:1:def add(a, b):"
    onefile = await call_tool("grep", {"pattern": "return", "path": "src/pkg/core.py"})
    assert onefile.content == "src/pkg/core.py:2:    return a - b"
    pathglob = await call_tool("grep", {"pattern": "add", "glob": "src/**/*.ts"})
    assert pathglob.content == "src/main.ts:1:const add = 1; // TODO"


async def test_grep_bounds_results(call_tool, workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit\n" * 50)
    out = await call_tool("grep", {"pattern": "hit", "max_results": 5})
    assert len(out.content.split("\n\n")[0].splitlines()) == 5
    assert "[45 more matching lines not shown" in out.content


async def test_grep_errors(call_tool, tree: Path) -> None:
    bad = await call_tool("grep", {"pattern": "(unclosed"})
    assert bad.is_error and "invalid regular expression '(unclosed'" in bad.content and "position" in bad.content
    none = await call_tool("grep", {"pattern": "zzz_not_there"})
    assert not none.is_error and none.content == "No matches for 'zzz_not_there' in ."
    outside = await call_tool("grep", {"pattern": "root", "path": "/etc"})
    assert outside.is_error and "outside the workspace" in outside.content


async def test_grep_does_not_follow_links_outside(call_tool, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "keys.txt").write_text("PASSWORD=hunter2\n")
    (workspace / "linked").symlink_to(secret, target_is_directory=True)
    (workspace / "keys.txt").symlink_to(secret / "keys.txt")
    out = await call_tool("grep", {"pattern": "PASSWORD"})
    assert "hunter2" not in out.content
    direct = await call_tool("grep", {"pattern": "PASSWORD", "path": "linked"})
    assert direct.is_error and "outside the workspace" in direct.content


async def test_glob(call_tool, tree: Path) -> None:
    out = await call_tool("glob", {"pattern": "**/*.py"})
    assert out.content.splitlines() == ["src/pkg/core.py", "src/pkg/util.py"]
    top = await call_tool("glob", {"pattern": "*.md"})
    assert top.content == "README.md"
    under = await call_tool("glob", {"pattern": "*.py", "path": "src/pkg"})
    assert under.content.splitlines() == ["src/pkg/core.py", "src/pkg/util.py"]
    none = await call_tool("glob", {"pattern": "*.rs"})
    assert none.content == "No files match '*.rs' in ."
    escape = await call_tool("glob", {"pattern": "../*"})
    assert escape.is_error and "'..'" in escape.content
    absolute = await call_tool("glob", {"pattern": "/etc/*"})
    assert absolute.is_error and "must be relative" in absolute.content


async def test_grep_and_glob_leave_out_excluded_paths(call_tool, tree: Path) -> None:
    (tree / "src" / "pkg" / "link.py").symlink_to(tree / "src" / "pkg" / "util.py")
    grep = await call_tool("grep", {"pattern": "TODO", "exclude": ["src/pkg/util.py"]})
    assert grep.content.splitlines() == ["src/main.ts:1:const add = 1; // TODO"]  # the link to it too
    glob = await call_tool("glob", {"pattern": "**/*.py", "exclude": ["src/pkg/core.py", "src/pkg/link.py"]})
    assert glob.content.splitlines() == ["src/pkg/util.py"]
    tree_out = await call_tool("glob", {"pattern": "**/*", "exclude": ["src"]})
    assert not any(line.startswith("src") for line in tree_out.content.splitlines())


def test_glob_to_regex() -> None:
    assert glob_to_regex("**/*.py").match("a.py")
    assert glob_to_regex("**/*.py").match("x/y/a.py")
    assert not glob_to_regex("*.py").match("x/a.py")
    assert glob_to_regex("src/**").match("src/a/b")
    assert glob_to_regex("[!a]?.txt").match("bc.txt")
    assert not glob_to_regex("[!a]?.txt").match("ac.txt")
    assert glob_to_regex("a+b(1).txt").match("a+b(1).txt")


async def test_ls(call_tool, tree: Path) -> None:
    (tree / "link").symlink_to("README.md")
    out = await call_tool("ls", {})
    assert out.content.splitlines() == [
        ".git/", ".gitignore", "README.md", "blob.bin", "build/", "link -> README.md", "node_modules/", "src/",
    ]
    sub = await call_tool("ls", {"path": "src"})
    assert sub.content.splitlines() == ["main.ts", "pkg/"]
    file = await call_tool("ls", {"path": "README.md"})
    assert file.is_error and "use read" in file.content
    outside = await call_tool("ls", {"path": ".."})
    assert outside.is_error and "outside the workspace" in outside.content


async def test_fifos_never_block_read_or_grep(call_tool, workspace: Path) -> None:
    import os

    os.mkfifo(workspace / "pipe")
    (workspace / "real.txt").write_text("needle\n")
    out = await call_tool("read", {"file_path": "pipe"}, deadline=5)
    assert out.is_error and "not a regular file" in out.content
    found = await call_tool("grep", {"pattern": "needle"}, deadline=5)
    assert found.content == "real.txt:1:needle"
