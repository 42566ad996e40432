"""The command index's joined regexes give what trying each rule in layer order gives: the
first rule matching a form or a word suffix, and the same subject."""

from __future__ import annotations

import random

from harness_rules._index import CommandIndex
from harness_rules._syntax import Rule, RuleOrigin, parse_rule
from harness_rules._words import SENTINEL, Suffixes

SPECS = ["rm", "rm *", "rm -rf *", "/bin/rm *", "git push *", "git push --force *", "git * --force *", "git",
         "*", "* -rf *", "npm run test *", "npm *", "curl *", "c*l *", "echo a*b", "ls", "sudo *", "x y"]
WORDS = ["rm", "/bin/rm", "/usr/bin/git", "git", "push", "--force", "-rf", "x", "y", "npm", "run", "test", "a",
         "b", "ab", "echo", "curl", "cl", "ls", "sudo", "a b", "*", SENTINEL, "c\x01l", "--"]


def _rules(rng: random.Random) -> list[Rule]:
    specs = rng.sample(SPECS, rng.randint(1, len(SPECS)))
    origin = RuleOrigin("project", "rules.toml")
    return [parse_rule(f"bash({s})" if s != "-" else "bash", "deny", origin) for s in specs] + (
        [parse_rule("bash", "deny", origin)] if rng.random() < 0.2 else [])


def _first_match(index: CommandIndex, forms: list[str], exact: bool) -> tuple[Rule, str] | None:
    """Every rule in layer order (the reference, no index)."""
    for rule in index.rules:
        for form in forms:
            pattern = rule.command
            if pattern is None or (pattern.matches(form) if exact else pattern.may_match(form)):
                return rule, form
    return None


def _first_suffix(index: CommandIndex, suffixes: list[Suffixes]) -> tuple[Rule, str] | str | None:
    order = {id(r): i for i, r in enumerate(index.rules)}
    best: tuple[int, Rule, str] | None = None
    for suffix in suffixes:
        for head, offsets in suffix.heads.items():
            for rule in index.for_head(head):
                if best is not None and order[id(rule)] >= best[0]:
                    break
                pattern = rule.command
                if pattern is None:
                    continue
                for offset in offsets:
                    text = suffix.text[offset:]
                    first, space, rest = text.partition(" ")
                    if (pattern.may_match(first.rsplit("/", 1)[-1] + space + rest) if SENTINEL in suffix.text
                            else pattern.matches_at(suffix.text, offset)):
                        best = (order[id(rule)], rule, text)
                        break
                if best is not None and best[1] is rule:
                    break
    return None if best is None else (best[1], best[2])


def test_joined_regexes_find_the_first_rule_in_layer_order() -> None:
    rng = random.Random(15)
    checked = 0
    for _ in range(300):
        index = CommandIndex(_rules(rng))
        for _ in range(20):
            forms = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))]
            for exact in (True, False):
                want = _first_match(index, forms, exact)
                got = index.first_match(forms, exact=exact)
                assert (None if got is None else (got[0].text, got[1])) == (
                    None if want is None else (want[0].text, want[1])), (forms, exact)
                checked += want is not None
            words = tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 7)))
            suffixes = [Suffixes(words, tuple(i for i in range(len(words)) if rng.random() < 0.7))]
            assert index.first_suffix(suffixes) == _first_suffix(index, suffixes), words
    assert checked > 1000
