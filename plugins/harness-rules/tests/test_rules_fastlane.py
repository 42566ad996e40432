"""The fast lane (hand-written tokenizer, no bashlex) checked differentially against the
bashlex walk: every adversarial-corpus command and thousands of generated ones must give
the same analysis (units, paths, opaque items, in order) and the same decision and
reason, unless the fast lane declines."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness_rules import RulesPolicy, _judge_plain, _shell, _walker
from harness_rules._fastlane import fast_analysis
from harness_rules._fastlex import lex
from harness_rules._shell import MAX_COMMAND_CHARS, ShellAnalysis
from harness_rules._walker import Walker

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the corpus module sits here
from rules_corpus import corpus, make_workspace
from shell_pieces import NASTY, PLAIN

COMMANDS = [p.input["command"] for p in corpus() if p.tool == "bash" and isinstance(p.input.get("command"), str)
            and len(p.input["command"]) <= MAX_COMMAND_CHARS]  # longer ones are refused before any parse

@pytest.fixture(scope="module")
def lane_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("lane").resolve()
    yield make_workspace(base)


def _reference(command: str, cwd: str, home: str, monkeypatch: pytest.MonkeyPatch) -> ShellAnalysis:
    """The walker's analysis with bashlex parsing everything (no fast pre-pass)."""
    with monkeypatch.context() as patch:
        patch.setattr(_walker, "fast_parse", lambda text: None)
        walker = Walker(home)
        error = walker.script(command, (cwd,), 0)
    assert error is None, f"bashlex refuses what the fast lane accepted: {command[:300]!r}: {error}"
    return ShellAnalysis(command, tuple(walker.units), tuple(walker.paths), tuple(walker.opaque))


def _decisions(command: str, ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """Both decisions judged from the analysis (the plain-line judge is checked against it in
    test_rules_plain_judge.py)."""
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    monkeypatch.setattr(_judge_plain, "plain_jobs", lambda *args: None)
    policy = RulesPolicy(discover=True, cwd=ws, env=env)
    _shell._analyze_cached.cache_clear()
    fast = policy.check("bash", {"command": command}, workspace_root=ws)
    with monkeypatch.context() as patch:
        patch.setattr(_shell, "fast_analysis", lambda *args: None)
        patch.setattr(_walker, "fast_parse", lambda text: None)
        _shell._analyze_cached.cache_clear()
        slow = RulesPolicy(discover=True, cwd=ws, env=env).check("bash", {"command": command}, workspace_root=ws)
    _shell._analyze_cached.cache_clear()
    return (fast.decision, fast.reason, fast.subject), (slow.decision, slow.reason, slow.subject)


def _check(command: str, ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Compare both paths on ``command``; True when the fast lane accepted it."""
    mine = fast_analysis(command, str(ws), str(home))
    if mine is None:
        return False
    assert mine == _reference(command, str(ws), str(home), monkeypatch), command[:300]
    fast, slow = _decisions(command, ws, home, monkeypatch)
    assert fast == slow, command[:300]
    return True


def test_every_corpus_command_gives_the_bashlex_analysis_and_decision(
        lane_ws: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = lane_ws
    accepted = sum(_check(command, ws, home, monkeypatch) for command in COMMANDS)
    assert len(COMMANDS) > 400 and accepted > 100  # the corpus exercises the fast lane, not only bashlex


@pytest.mark.parametrize("seed", range(4))
def test_generated_commands_give_the_bashlex_analysis_and_decision(
        lane_ws: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    ws, home = lane_ws
    rng = random.Random(1500 + seed)
    accepted = declined = 0
    for _ in range(900):
        pieces = [rng.choice(PLAIN if rng.random() < 0.85 else NASTY) for _ in range(rng.randint(1, 9))]
        glue = rng.choice([" ", " ", " ", "", "\t"])
        command = glue.join(pieces)
        if _check(command, ws, home, monkeypatch):
            accepted += 1
        else:
            declined += 1
    assert accepted > 150 and declined > 150  # both sides of the subset's edge are exercised


@pytest.mark.parametrize("command", [
    "echo $x", "echo `id`", "echo a\\\nb", "{ ls; }", "(ls)", "cat <(ls)", "cat <<EOF\nx\nEOF", "ls >| f",
    "ls <> f", "ls >&2'x'", "ls 2>&1#", "cat ~/x", "echo é", "echo a\x00b", "! ls", "if true; then ls; fi", "ls |& cat",
    "echo 'a' \\", "exec 3<f", "exec ls", "GLOBIGNORE=x ls", "export \"GLOB\"\"IGNORE=x\"; cat *", "ls && ", "ls |", "| ls", "# only a comment",
    "ls #c", "ls; ;", "12>f ls", "ls 12>f", "> f ls", "a=1 >f b=2 ls", "[[ -f x ]]", "'' x", "ls\r",
])
def test_the_fast_lane_declines_what_it_does_not_read_exactly(command: str) -> None:
    accepted = {"ls #c"}  # a comment after a blank is plain
    assert (fast_analysis(command, "/w", "/h") is not None) == (command in accepted), command


def test_the_lexer_reads_words_operators_and_redirections() -> None:
    lines = lex("A=1 git commit -m 'fix: x' 2>&1 | tail -5 > out.txt && cd src; ls\nwc")
    assert lines is not None and len(lines) == 2
    first, second = lines
    pipeline = first[0]
    assert isinstance(pipeline, list) and len(pipeline) == 2
    git, tail = pipeline
    assert git.assignments == ["A=1"] and git.words == ["git", "commit", "-m", "fix: x"]
    assert git.redirects == [(">&", 2, 1, "")]
    assert tail.words == ["tail", "-5"] and tail.redirects == [(">", None, "out.txt", "out.txt")]
    assert first[1:] == ["&&", first[2], ";", first[4]]
    assert [c.words for c in second[0]] == [["wc"]]  # type: ignore[union-attr]
