"""The example test in docs/testing.md runs and passes (in a child pytest)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_documented_example_test_passes(tmp_path: Path) -> None:
    blocks = re.findall(
        r"```python\n(# test_my_adapter\.py\n.*?)```", DOC.read_text(encoding="utf-8"), re.S
    )
    assert len(blocks) == 1, "docs/testing.md must contain exactly one example test file"
    (tmp_path / "test_my_adapter.py").write_text(blocks[0], encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", "-rA", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "PASSED test_my_adapter.py::test_tool_round_trip" in output, output
    assert result.returncode == 0, output


def test_documented_builtin_example_passes(tmp_path: Path) -> None:
    blocks = re.findall(
        r"```python\n(# test_my_tool_pack\.py\n.*?)```", DOC.read_text(encoding="utf-8"), re.S
    )
    assert len(blocks) == 1, "docs/testing.md must contain exactly one built-in harness example"
    (tmp_path / "test_my_tool_pack.py").write_text(blocks[0], encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", "-rA", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "PASSED test_my_tool_pack.py::test_the_model_calls_the_tool_and_sees_its_result" in output, output
    assert result.returncode == 0, output
