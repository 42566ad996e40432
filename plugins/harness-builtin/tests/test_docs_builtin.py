"""The runnable examples of docs/builtin.md run and print what their comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "builtin.md"


def test_the_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert blocks
    namespace: dict[str, object] = {"__name__": "docs_builtin"}
    for index, code in enumerate(blocks):
        exec(compile(code, f"{DOC.name}[block {index}]", "exec"), namespace)
    out = capsys.readouterr().out
    assert "It prints hello.\n['hello', '[exit code: 0]']" in out


def test_the_settings_table_names_every_factory_setting() -> None:
    import inspect

    from harness_builtin import create_builtin_adapter

    text = DOC.read_text(encoding="utf-8")
    for name in inspect.signature(create_builtin_adapter).parameters:
        assert f"`{name}`" in text, f"docs/builtin.md does not document {name!r}"
