"""The ``harness serve --demo`` scenario: a throwaway copy of a small project with one
failing test, and a scripted model (a responder for
:class:`harness_core.testing.ScriptedModelServer`) that fixes it.

The model reads the code and its test, runs the tests (a shell command: an approval under
``allow-edits``), fixes the bug with ``edit``, shows the change with ``git_diff`` when the
git tool pack is offered, runs the tests again and answers. Everything but the model is
real: files, shell, git. A denied test run is answered with "could not run the tests".
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Final

__all__ = ["DEMO_PROMPT", "demo_responder", "prepare_demo_workspace"]

DEMO_PROMPT: Final = "The tests of this project fail. Find the bug, fix it, and make sure the tests pass."
_BUG: Final = "return total(prices) / (len(prices) - 1)"
_FIX: Final = "return total(prices) / len(prices)"


def _git(path: Path, *args: str) -> bool:
    command = ["git", "-c", "user.name=harness demo", "-c", "user.email=demo@harness.invalid",
               "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, cwd=path, capture_output=True, check=False).returncode == 0


def prepare_demo_workspace(parent: Path | None = None) -> tuple[Path, bool]:
    """Copy the demo project into a new temporary directory (under ``parent``) and make it
    a git repository when git is installed: ``(project path, is a git repository)``."""
    path = Path(tempfile.mkdtemp(prefix="harness-serve-demo-", dir=parent)).resolve() / "shop-project"
    with resources.as_file(resources.files("harness_ui").joinpath("demo_project")) as project:
        shutil.copytree(project, path, ignore=shutil.ignore_patterns("__pycache__"))
    git = shutil.which("git") is not None and _git(path, "init", "-q") and _git(path, "add", "-A") \
        and _git(path, "commit", "-q", "-m", "shop: the demo project")
    return path, bool(git)


def demo_responder(workspace: Path, *, git: bool) -> Callable[[Any], Any]:
    """The scripted model for ``workspace`` (paths are absolute)."""
    from harness_core.testing import ModelTurn, ToolCallSpec

    cart, tests = str(workspace / "shop" / "cart.py"), str(workspace / "shop" / "test_cart.py")
    python = "python3" if shutil.which("python3") else "python"
    run_tests = f"set -o pipefail; {python} -m unittest -v 2>&1 | tee test-report.txt"

    def diff_name(request: Any) -> str | None:
        return next((n for n in request.tool_names if n == "git_diff" or n.endswith("__git_diff")), None)

    def steps(request: Any) -> list[Callable[[Any], Any]]:
        plan: list[Callable[[Any], Any]] = [
            lambda r: ModelTurn("I'll read the code and its tests first.", tool_calls=[
                ToolCallSpec("read", {"file_path": cart}), ToolCallSpec("read", {"file_path": tests})]),
            lambda r: ModelTurn("Now let me run the tests.", tool_calls=[
                ToolCallSpec("bash", {"command": run_tests, "description": "Run the unit tests"})]),
            lambda r: ModelTurn("`average_price()` divides by `len(prices) - 1`. Fixing it.", tool_calls=[
                ToolCallSpec("edit", {"file_path": cart, "old_string": _BUG, "new_string": _FIX})]),
        ]
        name = diff_name(request)
        if git and name is not None:
            plan.append(lambda r: ModelTurn("Here is the change in git:", tool_calls=[ToolCallSpec(name, {})]))
        plan.append(lambda r: ModelTurn("Running the tests again.", tool_calls=[
            ToolCallSpec("bash", {"command": run_tests, "description": "Run the unit tests again"})]))
        return plan

    def answer(request: Any) -> str:
        last = (request.last_tool_result or "").lower()
        if "denied" in last:
            return "I could not run the tests because the command was denied; the fix is in shop/cart.py."
        if "ok" in last and "failed" not in last:
            return "Fixed: `average_price` divided by `len(prices) - 1`; it now divides by `len(prices)`. All 3 tests pass."
        return "The tests still fail; see the report above."

    def respond(request: Any) -> Any:
        if request.is_side_request:
            return None
        plan = steps(request)
        return plan[request.turn_index](request) if request.turn_index < len(plan) else answer(request)

    return respond
