"""The runnable ``py`` example of docs/sandbox.md's BwrapSandbox section prints what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "sandbox.md"


@pytest.mark.requires_runtime("bwrap")
def test_the_bwrap_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    section = DOC.read_text(encoding="utf-8").split("## `BwrapSandbox`", 1)[1]
    [code] = re.findall(r"^```py\n(.*?)^```", section, flags=re.S | re.M)
    expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if "print(" in line]
    exec(compile(code, f"{DOC.name}[bwrap]", "exec"), {"__name__": "docs_bwrap"})
    assert capsys.readouterr().out.splitlines() == expected


def test_the_doc_names_the_hook_and_every_harness() -> None:
    text = DOC.read_text(encoding="utf-8")
    for needle in ("harness_sandboxes", "--sandbox bwrap", "workspace-write", "network_access",
                   "HarnessCapabilityUnsupportedError", "bench/bench_sandbox.py"):
        assert needle in text, needle
