"""docs/durable-runtimes.md states, per harness, what DurableAgent does: its table must say
what the code says (each refusal's reason word for word)."""

from __future__ import annotations

from pathlib import Path

from harness_dbos.resumers import NOT_RESUMABLE

DOC = Path(__file__).resolve().parents[3] / "docs" / "durable-runtimes.md"


def _rows() -> dict[str, tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- durable-harnesses:start -->")[1].split("<!-- durable-harnesses:end -->")[0]
    rows = {}
    for line in table.strip().splitlines()[2:]:
        harness, durable, how = (cell.strip() for cell in line.strip("|").split("|"))
        rows[harness.strip("`")] = (durable, how)
    return rows


def test_the_durable_harness_table_matches_the_code() -> None:
    rows = _rows()
    resumed = {"builtin", "claude-code", "codex", "pi"}
    assert set(rows) == {*resumed, *NOT_RESUMABLE}
    assert {rows[harness][0] for harness in resumed} == {"yes"}
    for harness, reason in NOT_RESUMABLE.items():
        assert rows[harness] == ("no", reason), harness
