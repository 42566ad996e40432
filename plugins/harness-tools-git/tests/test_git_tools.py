"""harness-tools-git against real git repositories, through a real LocalSandbox."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness_tools_git import GIT_TOOLS, MAX_LOG_COUNT, git_diff, git_log, git_status
from harness_tools_git._git import git_argv

from harness_core import (
    ExecutionContext,
    HarnessTool,
    ToolCall,
    ToolContext,
    ToolInputError,
    ToolOutput,
    ToolResources,
    create_plugin_manager,
    run_tool,
)

pytestmark = pytest.mark.anyio

Git = Callable[..., str]
Commit = Callable[[Path, str, str, str], None]


async def call(tool: HarnessTool, arguments: object, sandbox: Any) -> ToolOutput:
    """Validate ``arguments`` and run the tool the way the core's executor does."""
    validated = tool.validate(arguments)
    tool_context = ToolContext(tool_call_id="call-1", tool_name=tool.name, sandbox=sandbox)
    context = ExecutionContext(tool=tool, tool_context=tool_context)
    return await run_tool(ToolCall(tool_call_id="call-1", tool_name=tool.name, input=validated), context)


def _plain_git(repo: Path, *args: str) -> None:
    """git as a user would run it, without the tools' safety options (for control checks)."""
    subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False, env={**os.environ, "PAGER": "cat"})


def _exists(path: str) -> bool:
    return Path(path).exists()


# -- packaging and definitions ---------------------------------------------------------------


async def test_the_pack_is_an_installed_entry_point_plugin() -> None:
    [ep] = [ep for ep in importlib.metadata.entry_points(group="harness") if ep.name == "tools-git"]
    assert ep.value == "harness_tools_git.plugin"
    assert ep.dist is not None and ep.dist.name == "harness-tools-git"
    manager = create_plugin_manager(env={})
    tools = manager.hooks.tools()
    assert {name: plugin for name, (plugin, _) in tools.items() if name.startswith("git_")} == {
        "git_status": "tools-git",
        "git_diff": "tools-git",
        "git_log": "tools-git",
    }
    record = manager.record("tools-git")
    assert record is not None and (record.kind, record.distribution) == ("tools", "harness-tools-git")


async def test_every_tool_is_read_only_with_repository_resources() -> None:
    assert [tool.name for tool in GIT_TOOLS] == ["git_status", "git_diff", "git_log"]
    for tool in GIT_TOOLS:
        assert tool.read_only is True
        assert tool.execute is not None
        assert tool.json_schema["additionalProperties"] is False
        assert tool.resources_for(tool.validate({})) == ToolResources(paths=(".",))
    assert git_diff.resources_for(git_diff.validate({"path": "src/app.py"})) == ToolResources(paths=("src/app.py",))
    assert git_log.resources_for(git_log.validate({"path": "src"})) == ToolResources(paths=("src",))


@pytest.mark.parametrize(
    ("tool", "arguments", "where"),
    [
        (git_log, {"max_count": 0}, "$.max_count"),
        (git_log, {"max_count": MAX_LOG_COUNT + 1}, "$.max_count"),
        (git_log, {"max_count": True}, "$.max_count"),
        (git_log, {"max_count": "5"}, "$.max_count"),
        (git_diff, {"staged": "yes"}, "$.staged"),
        (git_diff, {"path": ""}, "$.path"),
        (git_status, {"verbose": True}, "$"),
    ],
)
async def test_inputs_are_bounded(tool: HarnessTool, arguments: dict[str, Any], where: str) -> None:
    with pytest.raises(ToolInputError) as info:
        tool.validate(arguments)
    assert [path for path, _ in info.value.problems] == [where]


# -- git_status --------------------------------------------------------------------------------


async def test_status_of_a_clean_repository(sandbox: Any) -> None:
    output = await call(git_status, {}, sandbox)
    assert not output.is_error
    assert output.content.strip() == "## main"


async def test_status_reports_staged_unstaged_and_untracked_files(sandbox: Any, repo: Path, run_git: Git) -> None:
    (repo / "README.md").write_text("# Changed\n", encoding="utf-8")
    (repo / "src" / "new.py").write_text("x = 1\n", encoding="utf-8")
    run_git(repo, "add", "src/new.py")
    (repo / "notes").mkdir()
    (repo / "notes" / "todo.txt").write_text("later\n", encoding="utf-8")
    (repo / "ünïcode.txt").write_text("u\n", encoding="utf-8")
    output = await call(git_status, None, sandbox)
    assert not output.is_error
    lines = output.content.splitlines()
    assert lines[0] == "## main"
    assert set(lines[1:]) == {" M README.md", "A  src/new.py", "?? notes/todo.txt", "?? ünïcode.txt"}


# -- git_diff ----------------------------------------------------------------------------------


async def test_diff_shows_unstaged_then_staged_changes(sandbox: Any, repo: Path, run_git: Git) -> None:
    assert (await call(git_diff, {}, sandbox)).content == "(no unstaged changes)"
    (repo / "README.md").write_text("# Demo\n\nA better demo project.\n", encoding="utf-8")
    unstaged = await call(git_diff, {}, sandbox)
    assert "diff --git a/README.md b/README.md" in unstaged.content
    assert "-A demo project." in unstaged.content and "+A better demo project." in unstaged.content
    assert (await call(git_diff, {"staged": True}, sandbox)).content == "(no staged changes)"
    run_git(repo, "add", "README.md")
    staged = await call(git_diff, '{"staged": true}', sandbox)
    assert "+A better demo project." in staged.content
    assert (await call(git_diff, {"staged": False}, sandbox)).content == "(no unstaged changes)"


async def test_diff_can_be_limited_to_a_path(sandbox: Any, repo: Path) -> None:
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    (repo / "src" / "app.py").write_text("print('bye')\n", encoding="utf-8")
    only_src = await call(git_diff, {"path": "src"}, sandbox)
    assert "src/app.py" in only_src.content and "README.md" not in only_src.content
    absolute = await call(git_diff, {"path": str(sandbox.root / "README.md")}, sandbox)
    assert "README.md" in absolute.content and "src/app.py" not in absolute.content
    dotted = await call(git_diff, {"path": "src/../README.md"}, sandbox)
    assert "README.md" in dotted.content and "src/app.py" not in dotted.content


# -- git_log -----------------------------------------------------------------------------------


async def test_log_lists_commits_newest_first(sandbox: Any) -> None:
    output = await call(git_log, {}, sandbox)
    assert not output.is_error
    text = output.content
    assert text.count("commit ") == 3
    assert text.index("Describe the project") < text.index("Add the app") < text.index("Initial commit")
    assert "Author: Ada Tester <ada@example.invalid>" in text


async def test_log_max_count_and_path(sandbox: Any, repo: Path, commit: Commit) -> None:
    latest = await call(git_log, {"max_count": 1}, sandbox)
    assert latest.content.count("commit ") == 1 and "Describe the project" in latest.content
    app_only = await call(git_log, {"path": "src/app.py"}, sandbox)
    assert app_only.content.count("commit ") == 1 and "Add the app" in app_only.content
    for n in range(MAX_LOG_COUNT + 5):
        commit(repo, "counter.txt", f"{n}\n", f"Count {n}")
    bounded = await call(git_log, {"max_count": MAX_LOG_COUNT}, sandbox)
    assert bounded.content.count("\ncommit ") + 1 == MAX_LOG_COUNT


async def test_log_of_an_empty_repository_is_an_error_from_git(tmp_path: Path, run_git: Git) -> None:
    from harness_core.sandbox import LocalSandbox

    root = tmp_path / "empty"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    local = LocalSandbox(root)
    try:
        output = await call(git_log, {}, local.restricted())
    finally:
        await local.stop()
    assert output.is_error
    assert "git log failed with exit status 128" in output.content
    assert "does not have any commits yet" in output.content


# -- not a repository ------------------------------------------------------------------------


@pytest.mark.parametrize("tool", GIT_TOOLS, ids=lambda tool: tool.name)
async def test_outside_a_repository_every_tool_says_so(tool: HarnessTool, plain_sandbox: Any) -> None:
    output = await call(tool, {}, plain_sandbox)
    assert output.is_error
    assert f"{tool.name}: the workspace {plain_sandbox.root.as_posix()!r} is not a git repository" in output.content


async def test_a_repository_enclosing_the_workspace_is_not_used(tmp_path: Path, run_git: Git) -> None:
    from harness_core.sandbox import LocalSandbox

    outer = tmp_path / "outer"
    workspace = outer / "packages" / "ws"
    workspace.mkdir(parents=True)
    run_git(outer, "init", "-q", "-b", "main")
    (outer / "secret.txt").write_text("outside the workspace\n", encoding="utf-8")
    local = LocalSandbox(workspace)
    try:
        output = await call(git_status, {}, local.restricted())
    finally:
        await local.stop()
    assert output.is_error and "is not a git repository" in output.content
    assert "secret.txt" not in output.content


async def test_without_a_sandbox_the_tools_say_so() -> None:
    output = await call(git_status, {}, None)
    assert output == ToolOutput("git_status: this session has no sandbox to run git in", is_error=True)


# -- arguments are argv, paths are checked ----------------------------------------------------


async def test_commands_are_argument_lists_with_paths_after_a_double_dash(sandbox: Any) -> None:
    await call(git_diff, {"path": "src", "staged": True}, sandbox)
    await call(git_log, {"path": "README.md", "max_count": 2}, sandbox)
    await call(git_status, {}, sandbox)
    diff, log, status = sandbox.commands
    for command in (diff, log, status):
        assert isinstance(command, list)
        assert command[0] == "git"
        assert "--literal-pathspecs" in command and "--no-optional-locks" in command
    assert diff[-2:] == ["--", "src"] and "--staged" in diff
    assert log[-2:] == ["--", "README.md"] and "--max-count=2" in log
    assert status[-1] == "--"
    assert sandbox.envs[0]["GIT_CEILING_DIRECTORIES"] == str(sandbox.root.parent)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("-p", "starts with '-'"),
        ("--output=/tmp/pwned", "starts with '-'"),
        ("--", "starts with '-'"),
        ("../outside", "leads outside the workspace"),
        ("src/../../outside", "leads outside the workspace"),
        ("..", "leads outside the workspace"),
        ("/etc/passwd", "is outside the workspace"),
        ("src\x00evil", "contains a NUL character"),
    ],
)
async def test_dangerous_paths_are_refused_before_git_runs(path: str, reason: str, sandbox: Any) -> None:
    for tool in (git_diff, git_log):
        output = await call(tool, {"path": path}, sandbox)
        assert output.is_error
        assert output.content.startswith(f"{tool.name}: path {path!r}")
        assert reason in output.content
    assert sandbox.commands == []
    assert not _exists("/tmp/pwned")


async def test_pathspec_magic_is_literal(sandbox: Any, repo: Path) -> None:
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    for magic in (":(top)", ":/", "*.md", "README.*"):
        output = await call(git_diff, {"path": magic}, sandbox)
        assert output.content == "(no unstaged changes)", magic


async def test_a_symbolic_link_to_outside_the_workspace_is_not_followed(sandbox: Any, repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n", encoding="utf-8")
    (repo / "link").symlink_to(outside, target_is_directory=True)
    for tool in (git_diff, git_log):
        for path in ("link/secret.txt", "link", "link/"):
            output = await call(tool, {"path": path}, sandbox)
            assert "top secret" not in output.content
            assert "secret.txt" not in output.content
    status = await call(git_status, {}, sandbox)
    assert "?? link" in status.content  # git reports the link itself, never what it points to
    assert "secret.txt" not in status.content


# -- read-only means read-only ----------------------------------------------------------------


def _arm_repository_config(repo: Path, run_git: Git, markers: Path) -> dict[str, Path]:
    """Configure the repository so that git would run programs; return their marker files."""
    marks = {name: markers / name for name in ("pager", "fsmonitor", "textconv", "external")}
    for name, mark in marks.items():
        script = markers / f"{name}.sh"
        script.write_text(f"#!/bin/sh\ntouch {mark}\ncat >/dev/null\n", encoding="utf-8")
        script.chmod(0o755)
    run_git(repo, "config", "core.pager", str(markers / "pager.sh"))
    run_git(repo, "config", "core.fsmonitor", str(markers / "fsmonitor.sh"))
    run_git(repo, "config", "diff.evil.textconv", str(markers / "textconv.sh"))
    run_git(repo, "config", "diff.external", str(markers / "external.sh"))
    (repo / ".gitattributes").write_text("*.md diff=evil\n", encoding="utf-8")
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    return marks


async def test_repository_configuration_cannot_make_the_tools_run_programs(
    sandbox: Any, repo: Path, run_git: Git, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    marks = _arm_repository_config(repo, run_git, markers)
    for tool, arguments in ((git_status, {}), (git_diff, {}), (git_diff, {"path": "README.md"}), (git_log, {})):
        output = await call(tool, arguments, sandbox)
        assert not output.is_error, output.content
    assert [name for name, mark in marks.items() if mark.exists()] == []
    # Control: the same configuration does run programs for a plain git invocation.
    _plain_git(repo, "diff")
    assert any(mark.exists() for mark in marks.values())


async def test_status_does_not_rewrite_the_index(sandbox: Any, repo: Path) -> None:
    index = repo / ".git" / "index"
    readme = repo / "README.md"
    stat = readme.stat()
    os.utime(readme, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # same content, new mtime
    before = index.read_bytes(), index.stat().st_mtime_ns
    output = await call(git_status, {}, sandbox)
    assert output.content.strip() == "## main"
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    # Control: a plain `git status` refreshes the stat data and rewrites the index.
    _plain_git(repo, "status")
    assert index.read_bytes() != before[0]


async def test_git_argv_puts_paths_after_the_separator() -> None:
    argv = git_argv("diff", ["--staged"], ["-weird"])
    assert argv[0] == "git" and argv[-2:] == ["--", "-weird"]
    assert argv.index("diff") < argv.index("--staged") < argv.index("--")


async def test_through_the_plugin_manager(sandbox: Any) -> None:
    manager = create_plugin_manager(env={})
    _, tool = manager.hooks.tools()["git_log"]
    tool_context = ToolContext(tool_call_id="c", tool_name="git_log", sandbox=sandbox)
    call_ = ToolCall(tool_call_id="c", tool_name="git_log", input=tool.validate({"max_count": 1}))
    output = await manager.hooks.execute_tool(call_, ExecutionContext(tool=tool, tool_context=tool_context))
    assert "Describe the project" in output.content
