"""The runnable example of docs/ui.md runs and prints what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "ui.md"


def test_the_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert blocks
    namespace: dict[str, object] = {"__name__": "docs_ui"}
    for index, code in enumerate(blocks):
        exec(compile(code, f"{DOC.name}[block {index}]", "exec"), namespace)
    out = capsys.readouterr().out
    assert "v1\n['tool-input-available', 'tool-approval-request']\nDone: note: kept hi\n" in out
