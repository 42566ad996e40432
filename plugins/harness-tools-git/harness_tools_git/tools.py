"""The read-only git tools: ``git_status``, ``git_diff`` and ``git_log``.

Each is a :class:`harness_core.HarnessTool` made with :func:`harness_core.define_harness_tool`:
``read_only=True`` (permission modes and policies may run them without asking), a
``resources`` function naming the repository path the call reads (``"."``, the workspace
root, or the path the call narrows to), and an async ``execute`` that runs git through the
sandbox of the call's :class:`~harness_core.ToolContext`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import HarnessTool, ToolContext, ToolOutput, ToolResources, define_harness_tool

from ._git import GitPathError, check_path, run_git

__all__ = ["GIT_TOOLS", "MAX_LOG_COUNT", "git_diff", "git_log", "git_status"]

MAX_LOG_COUNT: Final = 100
"""The most commits ``git_log`` returns in one call."""

_PATH_PROPERTY: Final[dict[str, Any]] = {
    "type": "string",
    "minLength": 1,
    "description": "A file or directory relative to the repository root; omit for the whole repository.",
}


def _repository_resources(input: Mapping[str, Any]) -> ToolResources:
    return ToolResources(paths=(input.get("path") or ".",))


def _paths(input: Mapping[str, Any], context: ToolContext) -> list[str] | ToolOutput:
    path = input.get("path")
    if path is None:
        return []
    if context.sandbox is None:
        return []  # run_git reports the missing sandbox
    try:
        return [check_path(path, context.sandbox.root)]
    except GitPathError as exc:
        return ToolOutput(f"{context.tool_name}: {exc}", is_error=True)


async def _status(input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
    return await run_git(context, "status", ["--short", "--branch", "--untracked-files=all"])


async def _diff(input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
    paths = _paths(input, context)
    if isinstance(paths, ToolOutput):
        return paths
    options = ["--no-color", "--no-ext-diff", "--no-textconv"]
    staged = bool(input.get("staged", False))
    if staged:
        options.append("--staged")
    what = "staged changes" if staged else "unstaged changes"
    return await run_git(context, "diff", options, paths, empty=f"(no {what})")


async def _log(input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
    paths = _paths(input, context)
    if isinstance(paths, ToolOutput):
        return paths
    count = int(input.get("max_count", 20))
    options = [
        f"--max-count={count}",
        "--no-color",
        "--no-textconv",
        "--date=iso-strict",
        "--format=commit %H%nAuthor: %an <%ae>%nDate:   %ad%n%n%w(0,4,4)%B",
    ]
    return await run_git(context, "log", options, paths, empty="(no commits)")


git_status: Final[HarnessTool] = define_harness_tool(
    name="git_status",
    description=(
        "Show the working tree status of the git repository in the workspace: the current "
        "branch, then one line per changed file (XY code: staged and unstaged state; ?? for "
        "untracked)."
    ),
    input={"type": "object", "properties": {}, "additionalProperties": False},
    read_only=True,
    resources=_repository_resources,
    execute=_status,
)

git_diff: Final[HarnessTool] = define_harness_tool(
    name="git_diff",
    description=(
        "Show changes in the git repository as a unified diff: unstaged changes (working tree "
        "against the index) by default, or staged changes (index against HEAD) with "
        "staged=true; optionally limited to one path."
    ),
    input={
        "type": "object",
        "properties": {
            "path": _PATH_PROPERTY,
            "staged": {
                "type": "boolean",
                "description": "Show staged changes (what the next commit would contain) instead of unstaged ones.",
            },
        },
        "additionalProperties": False,
    },
    read_only=True,
    resources=_repository_resources,
    execute=_diff,
)

git_log: Final[HarnessTool] = define_harness_tool(
    name="git_log",
    description=(
        "Show the most recent commits of the current branch (hash, author, ISO date, message), "
        f"newest first; at most {MAX_LOG_COUNT} per call; optionally only commits touching one path."
    ),
    input={
        "type": "object",
        "properties": {
            "max_count": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LOG_COUNT,
                "description": f"How many commits to show (1 to {MAX_LOG_COUNT}, default 20).",
            },
            "path": _PATH_PROPERTY,
        },
        "additionalProperties": False,
    },
    read_only=True,
    resources=_repository_resources,
    execute=_log,
)

GIT_TOOLS: Final[tuple[HarnessTool, ...]] = (git_status, git_diff, git_log)
"""Every tool of the pack, in the order ``harness_tools`` returns them."""
