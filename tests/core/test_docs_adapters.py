"""docs/adapters.md stays true: its minimal adapter passes the conformance suite, and its
parts reference lists every part model with its JSON fields."""

from __future__ import annotations

import re
import subprocess
import sys
import typing
from pathlib import Path

import pydantic

from harness_core.parts import models

DOC = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"
BEGIN, END = "<!-- parts-reference:begin -->", "<!-- parts-reference:end -->"


def parts_reference() -> str:
    """The table docs/adapters.md must hold between its parts-reference markers."""
    members = typing.get_args(typing.get_args(models.StreamPart)[0])
    rows = ["| `type` | class | fields (JSON keys; `?` optional) | what it says |", "| --- | --- | --- | --- |"]
    for cls in members:
        fields = []
        for name, info in cls.model_fields.items():
            if name == "type":
                continue
            key = info.alias or pydantic.alias_generators.to_camel(name)
            fields.append(f"`{key}`" + ("" if info.is_required() else "?"))
        kind = cls.model_fields["type"].default
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        rows.append(f"| `{kind}` | `{cls.__name__}` | {', '.join(fields) or '-'} | {doc} |")
    return "\n".join(rows)


def test_the_parts_reference_matches_the_part_models() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, "docs/adapters.md lost its parts-reference markers"
    shown = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    expected = parts_reference()
    assert shown == expected, "docs/adapters.md's parts reference is stale; replace it with:\n" + expected


def _block(name: str) -> str:
    found = re.findall(rf"```python\n(# {re.escape(name)}.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(found) == 1, f"docs/adapters.md must hold exactly one `# {name}` block"
    return found[0]


def test_the_minimal_adapter_passes_the_conformance_suite(tmp_path: Path) -> None:
    adapter = _block("tiny_adapter.py")
    code_lines = [line for line in adapter.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(code_lines) <= 80, f"the minimal adapter has {len(code_lines)} lines of code"
    (tmp_path / "tiny_adapter.py").write_text(adapter, encoding="utf-8")
    (tmp_path / "test_tiny_conformance.py").write_text(_block("test_tiny_conformance.py"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q", "test_tiny_conformance.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for test in (
        "test_host_tool_round_trip",
        "test_host_approval_pause_and_continue",
        "test_host_denial_never_executes",
        "test_user_denial_reaches_model",
        "test_runtime_failure_keeps_session_usable",
        "test_client_side_continuation_is_one_step",
    ):
        assert f"PASSED test_tiny_conformance.py::TestTinyConformance::{test}" in output, output
