"""Running read-only git commands in a sandbox: argv building, path checks, results.

Every command is an argument list (never a shell string) run by
``SandboxView.run_command`` with the workspace as working directory. The options below
keep git from running anything the repository configures and from writing to it:

* ``--no-pager``, ``-c core.pager=cat``: no pager process;
* ``-c core.fsmonitor=false``: no file-system monitor hook;
* ``--no-optional-locks`` / ``GIT_OPTIONAL_LOCKS=0``: ``git status`` does not rewrite the
  index it refreshes;
* ``--literal-pathspecs``: a path is a path (``:(top)``, ``*`` and other pathspec magic are
  plain characters);
* ``--no-ext-diff --no-textconv`` on diffs: no external diff drivers or text converters;
* ``GIT_CEILING_DIRECTORIES``: the repository must be the workspace itself; git never
  climbs to a repository that encloses the workspace.

Content filters (``filter.<driver>.clean``, e.g. Git LFS) configured in the repository's
own ``.git/config`` are still honoured by ``git status`` / ``git diff``; a policy that does
not trust the workspace's git configuration should not offer these tools.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Final

from harness_core import ToolContext, ToolOutput

__all__ = ["GIT_TIMEOUT_SECONDS", "GitPathError", "check_path", "git_argv", "run_git"]

GIT_TIMEOUT_SECONDS: Final = 30.0
"""Seconds a git command may run before it is killed and reported as an error."""

_GLOBAL_OPTIONS: Final[tuple[str, ...]] = (
    "--no-pager",
    "--no-optional-locks",
    "--literal-pathspecs",
    "-c",
    "core.pager=cat",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotepath=false",
    "-c",
    "color.ui=false",
)


class GitPathError(ValueError):
    """A ``path`` argument was refused; the message says why and names the path."""


def check_path(path: str, root: Path) -> str:
    """Check a path argument and return it relative to the workspace root.

    Args:
        path: as the model gave it: relative to the workspace root, or absolute inside it.
        root: the workspace root.

    Returns:
        The normalized relative path (``"."`` for the root itself).

    Raises:
        GitPathError: the path is empty, starts with ``-`` (it would read as an option),
            holds a NUL character, or leads outside the workspace (``..``, an absolute
            path elsewhere).
    """
    if not path:
        raise GitPathError("path must not be empty")
    if path.startswith("-"):
        raise GitPathError(f"path {path!r} starts with '-'; paths may not look like options")
    if "\0" in path:
        raise GitPathError(f"path {path!r} contains a NUL character")
    candidate = PurePosixPath(path)
    if candidate.is_absolute():
        try:
            candidate = PurePosixPath(posixpath.normpath(path)).relative_to(root.as_posix())
        except ValueError:
            raise GitPathError(f"path {path!r} is outside the workspace {root.as_posix()!r}") from None
    normalized = posixpath.normpath(candidate.as_posix())
    if normalized == ".." or normalized.startswith("../"):
        raise GitPathError(f"path {path!r} leads outside the workspace {root.as_posix()!r}")
    return normalized


def git_argv(subcommand: str, options: Sequence[str], paths: Sequence[str] = ()) -> list[str]:
    """The full argument list: global safety options, the subcommand, its options, then
    ``--`` and the paths (so no path is ever read as an option)."""
    return ["git", *_GLOBAL_OPTIONS, subcommand, *options, "--", *paths]


async def run_git(context: ToolContext, subcommand: str, options: Sequence[str],
                  paths: Sequence[str] = (), *, empty: str = "(no output)") -> ToolOutput:
    """Run one read-only git command in the call's sandbox.

    Args:
        context: the tool context; ``context.sandbox`` runs the command.
        subcommand: ``status``, ``diff``, ``log``...
        options: the subcommand's options (fixed by the tool, never from the model).
        paths: checked paths (see :func:`check_path`), placed after ``--``.
        empty: the text returned when git prints nothing.

    Returns:
        git's output, ``empty`` when there is none; an error result when the
        session has no sandbox, the workspace is not a git repository, git fails or
        times out.
    """
    sandbox = context.sandbox
    if sandbox is None:
        return ToolOutput(f"{context.tool_name}: this session has no sandbox to run git in", is_error=True)
    root = sandbox.root
    env = {
        "LC_ALL": "C",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(root.parent),
    }
    try:
        result = await sandbox.run_command(
            git_argv(subcommand, options, paths), timeout=GIT_TIMEOUT_SECONDS, env=env
        )
    except FileNotFoundError:
        return ToolOutput(f"{context.tool_name}: git is not installed in the sandbox", is_error=True)
    if result.timed_out:
        return ToolOutput(
            f"{context.tool_name}: git {subcommand} did not finish within {GIT_TIMEOUT_SECONDS:g} s", is_error=True
        )
    if result.exit_code != 0:
        stderr = result.stderr.strip()
        if "not a git repository" in stderr.lower():
            # `git diff` outside a repository adds its whole usage text: keep the first line.
            first = stderr.splitlines()[0]
            return ToolOutput(
                f"{context.tool_name}: the workspace {root.as_posix()!r} is not a git repository "
                f"(git: {first})",
                is_error=True,
            )
        return ToolOutput(
            f"{context.tool_name}: git {subcommand} failed with exit status {result.exit_code}: "
            f"{stderr or result.stdout.strip() or '(no message)'}",
            is_error=True,
        )
    return ToolOutput(result.stdout if result.stdout.strip() else empty)
