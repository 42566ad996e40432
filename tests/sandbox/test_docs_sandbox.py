"""The runnable examples of docs/sandbox.md run and print what their comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def test_the_examples_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEMO_API_KEY", raising=False)
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert len(blocks) == 2
    namespace: dict[str, object] = {"__name__": "docs_sandbox"}
    try:
        for index, code in enumerate(blocks):
            exec(compile(code, f"{DOC.name}[block {index}]", "exec"), namespace)
    finally:
        import os

        os.environ.pop("DEMO_API_KEY", None)
    out = capsys.readouterr().out
    assert out.splitlines() == ["ship it", "0 ['todo.txt', '1']", "refused: True", "0 True None"]
