"""The adversarial corpus (tests/rules_corpus.py) against ``harness rules check``, a real
``harness`` process and, for a sample, real built-in harness turns.

Also: the fast pre-pass builds the very trees bashlex builds, long commands cost linear
time and bounded memory, and importing the plugin does not import bashlex.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from harness_rules import RulesPolicy
from harness_rules._fastparse import fast_parse
from harness_rules.cli import rules

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the corpus module sits here
from rules_corpus import Payload, corpus, make_workspace

CORPUS = corpus()


def test_the_corpus_is_large_and_covers_every_decision() -> None:
    assert len(CORPUS) >= 300
    assert {p.expected for p in CORPUS} == {"allow", "ask", "deny", "none"}
    assert len({(p.tool, json.dumps(p.input)) for p in CORPUS}) == len(CORPUS)  # no duplicates


@pytest.fixture(scope="module")
def corpus_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("corpus").resolve()
    ws, home = make_workspace(base)
    yield ws, home
    assert (ws / "victim").read_text() == "precious\n"  # judging never runs anything


def _label(payload: Payload) -> str:
    return f"{payload.expected}:{payload.tool}:{json.dumps(payload.input)[:70]}"


@pytest.mark.parametrize("payload", CORPUS, ids=[_label(p) for p in CORPUS])
def test_corpus_through_rules_check(corpus_ws: tuple[Path, Path], payload: Payload) -> None:
    ws, home = corpus_ws
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    started = time.perf_counter()
    result = CliRunner().invoke(rules, ["check", payload.tool, json.dumps(payload.input), "--cwd", str(ws), "--json"],
                                env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["decision"] == payload.expected, f"{payload.note}: {data['reason']}"
    assert time.perf_counter() - started < 5
    if payload.expected in ("deny", "ask"):
        assert data["reason"]


SAMPLE = [p for i, p in enumerate(CORPUS) if i % 97 == 0]


def test_corpus_sample_through_a_real_harness_process(corpus_ws: tuple[Path, Path]) -> None:
    ws, home = corpus_ws
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    for payload in SAMPLE:
        done = subprocess.run(
            [sys.executable, "-m", "harness_core.cli", "rules", "check", payload.tool, json.dumps(payload.input),
             "--cwd", str(ws), "--json"],
            capture_output=True, text=True, timeout=120, check=False, env=env,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["decision"] == payload.expected, payload


def test_fast_prepass_builds_the_trees_bashlex_builds() -> None:
    import bashlex

    pieces = ["git", "status", "-s", "ls", "-la", "src/a.py", "'a b'", '"c d"', "A=1", "x=y", "2>&1", ">&2",
              "> out.txt", ">>log", "2>err", "< in.txt", "&>all", "&&", "||", ";", "|", "&", "\n", "# c", "*.py",
              "a#b", "--x=1", "''", "echo", "12", ">f", "e'q'x", "B+=2", "a[1]", ":", "-", "."]
    rng = random.Random(15)
    accepted = 0
    for _ in range(3000):
        command = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        fast = fast_parse(command)
        if fast is None:
            continue
        accepted += 1
        reference = bashlex.parse(command)  # the pre-pass accepts only what bashlex parses
        assert len(fast) == len(reference), command
        for mine, theirs in zip(fast, reference, strict=True):
            assert _shape(mine) == _shape(theirs), command
    assert accepted > 1000


def _shape(node: Any) -> Any:
    fields = {k: getattr(node, k, None) for k in ("kind", "pos", "word", "type", "input", "op", "pipe")}
    output = getattr(node, "output", None)
    fields["output"] = _shape(output) if hasattr(output, "kind") else output
    fields["parts"] = [_shape(p) for p in (getattr(node, "parts", None) or ())]
    return fields


@pytest.mark.parametrize("size", [40_000, 1_000_000])
def test_long_commands_are_asked_about_in_bounded_time_and_memory(tmp_path: Path, size: int) -> None:
    policy = RulesPolicy({"deny": ["bash(rm *)"], "allow": ["bash(echo *)"]}, cwd=tmp_path)
    command = ("echo a && " * (size // 10))[:size]
    tracemalloc.start()
    started = time.perf_counter()
    verdict = policy.check("bash", {"command": command}, workspace_root=tmp_path)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert verdict.decision == "ask" and "characters" in verdict.reason
    assert elapsed < 2 and peak < 20 * size + 10_000_000


def test_suffix_checks_stay_linear_below_the_limit(tmp_path: Path) -> None:
    policy = RulesPolicy({"deny": ["bash(rm -rf *)", "bash(git * --force *)"]}, cwd=tmp_path)
    command = "mywrapper " + "git x " * 5000  # an unknown command: every word suffix is a candidate
    started = time.process_time()  # CPU time: the shared machine's load does not count
    verdict = policy.check("bash", {"command": command}, workspace_root=tmp_path)
    assert verdict.decision == "none" and time.process_time() - started < 5


def test_importing_the_plugin_does_not_import_bashlex() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import harness_rules, harness_rules.plugin"],
                          capture_output=True, text=True, timeout=120, check=True)
    assert "harness_rules" in done.stderr and "bashlex" not in done.stderr
