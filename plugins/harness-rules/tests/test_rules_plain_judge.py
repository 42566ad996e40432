"""The plain-line judge (one pass from the lexer's output, no analysis) checked
differentially against judging the analysis of the same line: every adversarial-corpus
command, the benchmark's commands and thousands of generated ones must get the same
verdict - decision, reason, rule, subject and every match in order - with the shell guard
on and off, unless the plain-line judge declines the line."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_rules import RulesPolicy, _judge_plain
from harness_rules._judge_plain import plain_jobs

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the helper modules sit here
from rules_corpus import corpus, make_workspace
from shell_pieces import NASTY, PLAIN

ROOT = Path(__file__).resolve().parents[3]
COMMANDS = [p.input["command"] for p in corpus() if p.tool == "bash" and isinstance(p.input.get("command"), str)]


def _bench_commands() -> list[str]:
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_rules  # bench/ is not a package

    compound = [t.format(i=i, n=i % 97) for i in range(40) for t in bench_rules.COMPOUND]
    return [*compound, *bench_rules.COMMANDS, *bench_rules.WRAPPED]


@pytest.fixture(scope="module")
def plain_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("plain").resolve()
    ws, home = make_workspace(base)
    (ws / "src" / "lib").mkdir()
    (ws / "src" / "lib" / "mod1.py").write_text("x = 1\n")
    (ws / "build").mkdir()
    (ws / "tests").mkdir()
    (ws / "tests" / "test_1.py").write_text("def test(): pass\n")
    (ws / "run").symlink_to(".env")  # an argument that names a denied file through a link (`npm run`)
    yield ws, home


def _verdicts(policy: RulesPolicy, command: str, ws: Path,
              monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(plain, analysis)`` verdicts as JSON, or ``None`` when the plain-line judge declines."""
    if plain_jobs(command, str(ws), policy.home) is None:
        return None
    plain = policy.check("bash", {"command": command}, workspace_root=ws).to_json()
    with monkeypatch.context() as patch:
        patch.setattr(_judge_plain, "plain_jobs", lambda *args: None)
        analysed = policy.check("bash", {"command": command}, workspace_root=ws).to_json()
    return plain, analysed


def _policies(ws: Path, home: Path) -> list[RulesPolicy]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return [RulesPolicy(discover=True, cwd=ws, env=env),
            RulesPolicy(discover=True, cwd=ws, env=env, guard_arguments=False)]


def _compare(commands: list[str], ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    judged = 0
    for policy in _policies(ws, home):
        for command in commands:
            found = _verdicts(policy, command, ws, monkeypatch)
            if found is None:
                continue
            judged += 1
            assert found[0] == found[1], f"guard {policy.guard_arguments}: {command[:300]!r}"
    return judged


def test_corpus_commands_get_the_verdict_of_their_analysis(plain_ws: tuple[Path, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = plain_ws
    assert _compare(COMMANDS, ws, home, monkeypatch) > 200  # the corpus reaches the plain-line judge


def test_benchmark_commands_get_the_verdict_of_their_analysis(plain_ws: tuple[Path, Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = plain_ws
    commands = _bench_commands()
    assert _compare(commands, ws, home, monkeypatch) > len(commands)  # most of them, under both policies


@pytest.mark.parametrize("seed", range(4))
def test_generated_commands_get_the_verdict_of_their_analysis(plain_ws: tuple[Path, Path],
                                                              monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    ws, home = plain_ws
    rng = random.Random(2600 + seed)
    commands = []
    for _ in range(700):
        pieces = [rng.choice(PLAIN if rng.random() < 0.9 else NASTY) for _ in range(rng.randint(1, 9))]
        commands.append(rng.choice([" ", " ", " ", "", "\t"]).join(pieces))
    assert _compare(commands, ws, home, monkeypatch) > 400


def test_the_guard_finds_a_denied_file_behind_a_subcommand_link(plain_ws: tuple[Path, Path]) -> None:
    ws, home = plain_ws
    strict, loose = _policies(ws, home)
    command = "npm run test -- -k case1"
    assert plain_jobs(command, str(ws), strict.home) is not None
    verdict = strict.check("bash", {"command": command}, workspace_root=ws)
    assert verdict.decision == "deny" and "run" in (verdict.subject or ""), verdict.reason
    assert loose.check("bash", {"command": command}, workspace_root=ws).decision != "deny"


@pytest.mark.parametrize("command", [
    "sudo ls", "find . -exec rm {} +", "echo x | bash", "echo 'rm x' | sh", "tee out", "exec ls", "FOO=1",
    "LD_PRELOAD=/x ls", "x* y", "cat $(ls)", "GLOBIGNORE=x ls", "export \"GLOB\"\"IGNORE=x\"", "bash -c ls",
    "printf -v a[1] x", "read a[1]", "hash -p /bin/rm ls", "xargs rm", "x" * 40_000,
    "nice", "env", "command -v ls",  # wrappers other than find go to the analysis even when they wrap nothing
])
def test_the_plain_judge_declines_what_needs_the_analysis(command: str) -> None:
    assert plain_jobs(command, "/w", "/h") is None, command


@pytest.mark.parametrize("command", ["find . -name x", "find src -type f", "printf x", "declare x", "echo -n x"])
def test_wrappers_and_builtins_wrapping_nothing_are_judged_as_written(plain_ws: tuple[Path, Path], command: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = plain_ws
    assert plain_jobs(command, str(ws), str(home)) is not None
    assert _compare([command], ws, home, monkeypatch) == 2


@pytest.mark.parametrize("command", ["cat .env.production", "head -5 .env.local | wc -l", "grep -n x .env.ci",
                                     "cd src && cat ../.env.prod"])
def test_the_guard_denies_a_missing_file_a_deny_rule_names(tmp_path: Path, command: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that does not exist yet is still denied by a rule naming it (the shortcut
    for arguments naming nothing must not skip the deny rules)."""
    (tmp_path / "src").mkdir()
    (tmp_path / ".harness").mkdir()
    (tmp_path / ".harness" / "rules.toml").write_text(
        '[permissions]\nallow = ["bash(cat *)", "bash(head *)", "bash(wc *)", "bash(grep *)"]\n'
        'deny = ["read(./.env.*)"]\n')
    policy = RulesPolicy(discover=True, cwd=tmp_path, env={"HOME": str(tmp_path / "home")})
    assert plain_jobs(command, str(tmp_path), policy.home) is not None
    plain = policy.check("bash", {"command": command}, workspace_root=tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(_judge_plain, "plain_jobs", lambda *args: None)
        analysed = policy.check("bash", {"command": command}, workspace_root=tmp_path)
    assert plain.decision == analysed.decision == "deny", (plain.reason, analysed.reason)
    assert plain.rule is not None and plain.rule.text == "read(./.env.*)"
