"""The runnable example of docs/acp.md runs offline and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "acp.md"


def _blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


@pytest.mark.requires_runtime("codex-acp", "acp")
def test_the_doc_example_runs(tmp_path: Path) -> None:
    [code] = _blocks()
    expected = [line.removeprefix("# ") for line in code.split("# prints:\n", 1)[1].splitlines()]
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == expected


def test_the_profile_table_lists_every_profile() -> None:
    from harness_acp import PROFILES

    text = DOC.read_text(encoding="utf-8")
    for name in PROFILES:
        assert f"| `{name}`" in text
