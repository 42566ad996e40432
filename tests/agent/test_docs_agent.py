"""The runnable examples of docs/agent.md run, and print what the comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "agent.md"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_doc_has_runnable_examples() -> None:
    assert len(blocks()) >= 8


def test_the_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {"__name__": "docs_agent"}
    for index, code in enumerate(blocks()):
        try:
            exec(compile(code, f"{DOC.name}[block {index}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message says which block failed
            raise AssertionError(f"docs/agent.md block {index} failed: {type(exc).__name__}: {exc}\n{code}") from exc
    out = capsys.readouterr().out
    for expected in (
        "Results: bash:  | weather:",
        "{'city': 'Paris', 'celsius': 12}",
        "city='Paris' celsius=12",
        "(('$.celsius', 'Field required'),)",
        "city='Oslo' celsius=-3",
        "tool-calls True",
        "Two cities checked.",
        "True False",
        "the scripted runtime has no read-only mode",
        "does not support steering (steer_turn()): not declared by the adapter",
        "['---', 'name: release-notes', 'description: \"Use when asked to write release notes.\"']",
        "skill file path '../outside.md' must not contain '..', '.' or empty segments",
        "['harness.step', 'harness.step', 'harness.tool_call', 'harness.turn']",
        "['NotebookEdit', 'bash', 'edit', 'glob', 'read', 'weather', 'write']",
        "active_tools or inactive_tools, not both",
        "It is 12 degrees.",
        "{'type': 'abort', 'reason': 'the user pressed stop'}",
        "Ready.",
        "lookup_account: account of ada",
        "You chose pick_color: teal",
        "awaiting-approval ['approval-c1']",
        "Model saw: record: Execution denied: one note is enough | record: recorded two",
        "Done: record: recorded later",
        "refused: the signature does not match",
        "Done: record: recorded once",
        "the second continue was refused",
        "record: recorded sync",
    ):
        assert expected in out, f"{expected!r} not printed; output:\n{out}"
