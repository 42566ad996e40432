"""No module is over 400 lines in ``harness_core`` (testing included), harness-builtin's
``harness_builtin`` or harness-claude-code's ``harness_claude_code``.

A long module usually holds more than one concept; split it by concept (a subpackage with
one module each, re-exported where the old names were public).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400

PACKAGES = [
    ROOT / "harness_core",
    ROOT / "plugins" / "harness-builtin" / "harness_builtin",
    ROOT / "plugins" / "harness-claude-code" / "harness_claude_code",
]


def oversized(package_dir: Path, limit: int = MAX_LINES) -> list[str]:
    """``path: N lines`` for every ``.py`` file of the package longer than ``limit`` lines."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > limit:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where.as_posix()}: {count} lines")
    return found


@pytest.mark.parametrize("package_dir", PACKAGES, ids=lambda p: p.name)
def test_no_module_is_over_400_lines(package_dir: Path) -> None:
    assert package_dir.is_dir(), package_dir
    found = oversized(package_dir)
    assert not found, f"modules over {MAX_LINES} lines (split them by concept):\n" + "\n".join(found)


def test_the_size_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert oversized(tmp_path) == [f"{(tmp_path / 'long.py').as_posix()}: {MAX_LINES + 1} lines"]
