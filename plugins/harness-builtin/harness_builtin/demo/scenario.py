"""The demo scenario: a throwaway copy of the demo project and the scripted model's part.

The model is scripted (a :class:`harness_core.testing.ScriptedModelServer` answers from
:func:`demo_script`), but everything else is real: the harness reads the real files, runs
the real tests in a shell, edits the real file, and asks git for the real diff.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Final

import attrs

__all__ = ["DEMO_PROMPT", "DemoWorkspace", "demo_script", "prepare_workspace", "run_project_tests"]

DEMO_PROMPT: Final = "The test suite of this project fails. Find the bug, fix it, and make sure the tests pass."
_BUGGY: Final = "return total(values) / (len(values) + 1)"
_FIXED: Final = "return total(values) / len(values)"


@attrs.frozen
class DemoWorkspace:
    """The prepared workspace: its path, whether it is a git repository, the python to use."""

    path: Path
    git: bool
    python: str


def _copy_project(target: Path) -> None:
    source = resources.files("harness_builtin.demo").joinpath("project")
    with resources.as_file(source) as project:
        shutil.copytree(project, target, ignore=shutil.ignore_patterns("__pycache__"))


def _git(path: Path, *args: str) -> bool:
    command = ["git", "-c", "user.name=harness demo", "-c", "user.email=demo@harness.invalid",
               "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args]
    completed = subprocess.run(command, cwd=path, capture_output=True, text=True, check=False)
    return completed.returncode == 0


def prepare_workspace(parent: Path | None = None) -> DemoWorkspace:
    """Copy the demo project into a new directory (under ``parent``, default the system
    temporary directory) and make it a git repository with one commit when git exists."""
    base = Path(tempfile.mkdtemp(prefix="harness-demo-", dir=parent))
    path = (base / "calc-project").resolve()
    _copy_project(path)
    git = shutil.which("git") is not None and _git(path, "init", "-q") and _git(path, "add", "-A") \
        and _git(path, "commit", "-q", "-m", "calc: the demo project")
    python = "python3" if shutil.which("python3") else "python"
    return DemoWorkspace(path=path, git=bool(git), python=python)


def run_project_tests(workspace: DemoWorkspace) -> tuple[bool, str]:
    """Run the project's tests outside the harness: ``(passed, last line of the report)``."""
    completed = subprocess.run([workspace.python, "-m", "unittest"], cwd=workspace.path, capture_output=True,
                               text=True, check=False, timeout=120)
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    return completed.returncode == 0, lines[-1] if lines else f"exit code {completed.returncode}"


def demo_script(workspace: DemoWorkspace) -> Callable[[Any], Any]:
    """The scripted model: a responder for :class:`harness_core.testing.ScriptedModelServer`.

    Read the code and its test, run the tests (a shell command: an approval under
    allow-edits), fix the bug with ``edit``, show the change with ``git_diff`` when the
    git tool pack is installed, run the tests again, and answer. Paths are absolute, so
    runtimes that want absolute paths (Claude Code) take them too.
    """
    from harness_core.testing import ModelTurn, ToolCallSpec, ToolNotOfferedError

    root = workspace.path
    stats = str(root / "calc" / "stats.py")
    tests = str(root / "calc" / "test_stats.py")
    run_tests = f"set -o pipefail; {workspace.python} -m unittest -v 2>&1 | tee test-report.txt"
    plan: list[Callable[[Any], Any]] = []

    def offered(request: Any, name: str) -> bool:
        try:
            request.resolve_tool(name)
        except ToolNotOfferedError:
            return False
        return True

    def read_step(request: Any) -> Any:
        if not offered(request, "read"):  # Codex reads through its shell
            return ModelTurn("I'll start by reading the code and its tests.", tool_calls=[
                ToolCallSpec("bash", {"command": f"cat {stats} {tests}"})])
        return ModelTurn("I'll start by reading the code and its tests.", tool_calls=[
            ToolCallSpec("read", {"file_path": stats}), ToolCallSpec("read", {"file_path": tests})])

    def test_step(request: Any) -> Any:
        return ModelTurn("Now let me run the tests to see what fails.", tool_calls=[
            ToolCallSpec("bash", {"command": run_tests, "description": "Run the unit tests"})])

    def fix_step(request: Any) -> Any:
        if not offered(request, "edit") and "apply_patch" in request.tool_names:  # Codex's freeform patch tool
            patch = f"*** Begin Patch\n*** Update File: {stats}\n@@\n-    {_BUGGY}\n+    {_FIXED}\n*** End Patch\n"
            return ModelTurn("`mean()` divides by `len(values) + 1` instead of `len(values)`. Fixing it.",
                             tool_calls=[ToolCallSpec("apply_patch", patch)])
        edit = next((t for t in request.tools if t.name == request.resolve_tool("edit")), None)
        properties = (edit.input_schema or {}).get("properties", {}) if edit is not None else {}
        arguments: dict[str, Any] = {"file_path": stats, "old_string": _BUGGY, "new_string": _FIXED}
        if "edits" in properties:  # pi: {path, edits: [{oldText, newText}]}
            arguments = {"path": stats, "edits": [{"oldText": _BUGGY, "newText": _FIXED}]}
        return ModelTurn("`mean()` divides by `len(values) + 1` instead of `len(values)`. Fixing it.", tool_calls=[
            ToolCallSpec("edit", arguments)])

    def diff_step(request: Any) -> Any:
        name = next((n for n in request.tool_names if n == "git_diff" or n.endswith("__git_diff")), "git_diff")
        return ModelTurn("Here is the change in git:", tool_calls=[ToolCallSpec(name, {})])

    def retest_step(request: Any) -> Any:
        return ModelTurn("Running the tests again.", tool_calls=[
            ToolCallSpec("bash", {"command": run_tests, "description": "Run the unit tests again"})])

    def answer(request: Any) -> Any:
        last = request.last_tool_result or ""
        if "denied" in last.lower():
            return "I could not run the tests because the command was denied; the fix is in calc/stats.py."
        if "OK" in last and "FAILED" not in last:
            return ("Fixed: `calc.stats.mean` divided by `len(values) + 1`; it now divides by `len(values)`. "
                    "All 3 tests pass.")
        return "The tests still fail; see the report above."

    def respond(request: Any) -> Any:
        if request.is_side_request:
            return None
        if not plan:
            has_git = any(n == "git_diff" or n.endswith("__git_diff") for n in request.tool_names)
            plan.extend([read_step, test_step, fix_step, *([diff_step] if has_git and workspace.git else []),
                         retest_step])
        index = request.turn_index
        return plan[index](request) if index < len(plan) else answer(request)

    return respond
