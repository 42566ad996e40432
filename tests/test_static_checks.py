"""Lint and type checks run as part of the test suite (the README's one test command).

``ruff check`` covers the whole repository; ``mypy --strict`` covers the core and every
plugin package. Each check runs the real tool in a subprocess and fails with its output.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _packages() -> list[str]:
    targets = ["harness_core"]
    for plugin in sorted((ROOT / "plugins").iterdir()):
        for package in sorted(plugin.glob("harness_*/__init__.py")):
            targets.append(str(package.parent.relative_to(ROOT)))
    return targets


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.prefix) / "bin" / "ruff").exists(),
                    reason="ruff is not installed (it is part of the dev dependency group)")
def test_ruff_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy", "--strict", *_packages())
    assert result.returncode == 0, result.stdout + result.stderr
