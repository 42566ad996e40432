"""The engine's memos keep what repeats: a key offered once is not stored (so first-seen
command lines neither evict useful entries nor leave objects for the garbage collector), a
key offered twice is, and every memo stays bounded."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from harness_rules import RulesPolicy
from harness_rules._judge_plain import _PLANS, plain_jobs
from harness_rules._memo import RepeatMemo


def test_a_key_is_kept_the_second_time_it_is_offered() -> None:
    memo: RepeatMemo[str, int] = RepeatMemo(4)
    assert memo.remember("a", 1) == 1
    assert "a" not in memo
    assert memo.remember("a", 1) == 1
    assert memo.get("a") == 1


def test_the_memo_is_bounded_and_forgets_everything() -> None:
    memo: RepeatMemo[int, int] = RepeatMemo(3)
    for key in range(10):
        memo.remember(key, key)
        memo.remember(key, key)
        assert len(memo) <= 3
    assert memo.get(9) == 9
    memo.forget()
    assert not memo
    memo.remember(9, 9)
    assert 9 not in memo  # the hash was forgotten too


def test_remembered_hashes_are_bounded() -> None:
    memo: RepeatMemo[int, int] = RepeatMemo(2)
    for key in range(100):
        memo.remember(key, key)
    memo.remember(99, 99)
    assert memo.get(99) == 99  # the latest hashes survive a clear of the oldest
    assert len(memo) == 1


def test_a_memo_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="positive limit, got 0"):
        RepeatMemo(0)


def test_a_plain_line_is_planned_into_the_memo_only_when_it_repeats(tmp_path: Path) -> None:
    line = f"git diff src/unique_{id(tmp_path)}.py && ls | wc -l"
    first = plain_jobs(line, str(tmp_path), "/home/x")
    assert first is not None
    assert (line, str(tmp_path), "/home/x") not in _PLANS
    plain_jobs(line, str(tmp_path), "/home/x")
    assert (line, str(tmp_path), "/home/x") in _PLANS


def test_first_seen_command_lines_leave_few_objects_behind(tmp_path: Path) -> None:
    """Before, each first-seen compound line left about 27 garbage-collected objects in the
    memos (its plan, its commands' word lists, their rule matches)."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / ".harness").mkdir()
    (ws / ".harness" / "rules.toml").write_text(
        '[permissions]\nallow = ["bash(git diff *)", "bash(ls *)", "bash(wc *)"]\ndeny = ["read(./.env)"]\n')
    policy = RulesPolicy(discover=True, cwd=ws, env={"HOME": str(tmp_path / "home")})
    lines = [f"git diff src/m{i}.py -- x{i} && ls -la src | wc -l > /dev/null" for i in range(400)]
    assert policy.check("bash", {"command": lines[0]}, workspace_root=ws).decision == "allow"
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for line in lines[1:]:
            policy.check("bash", {"command": line}, workspace_root=ws)
        kept = (len(gc.get_objects()) - before) / (len(lines) - 1)
    finally:
        if was_enabled:
            gc.enable()
    assert kept < 8, f"{kept:.1f} tracked objects kept per first-seen decision"
