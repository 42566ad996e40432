"""Rule indexes: the few rules that can match a command, found by its name.

A decision must not try every rule's regex on every command form: a
:class:`CommandIndex` keeps one list's command rules by the literal command name they
require (:attr:`~harness_rules.CommandPattern.head`), so a form is tried only against the
rules for its own first word plus the rules whose first word holds a ``*`` (and rules
without specifier, which match every command). Results keep the rules' layer order: the
first matching rule in that order is the one reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from ._paths import Bases, PathPattern, Spelling, relative
from ._syntax import Rule, RuleKind
from ._words import SENTINEL, Suffixes

__all__ = ["MAX_UNKNOWN_SUFFIXES", "CommandIndex", "PathIndex"]

MAX_UNKNOWN_SUFFIXES: Final = 64
"""Word suffixes holding run-time arguments that are intersected with a rule, at most; a
longer command with such holes is not judged (asked about), keeping the cost linear."""


class CommandIndex:
    """One list's command rules (deny, ask or allow), by command name.

    Args:
        rules: the rules in layer order (rules without a command pattern and not
            specifier-less are ignored).
    """

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(r for r in rules if r.kind is RuleKind.NAME or r.command is not None)
        self._order = {id(r): i for i, r in enumerate(self.rules)}
        self._by_head: dict[str, list[Rule]] = {}
        self._wild: list[Rule] = []
        for rule in self.rules:
            head = rule.command.head if rule.command is not None else None
            if head is None:
                self._wild.append(rule)
            else:
                self._by_head.setdefault(head, []).append(rule)
                base = head.rsplit("/", 1)[-1]
                if base != head:
                    self._by_head.setdefault(base, []).append(rule)
        self._cache: dict[str, tuple[Rule, ...]] = {}

    def __bool__(self) -> bool:
        return bool(self.rules)

    def for_head(self, head: str) -> tuple[Rule, ...]:
        """The rules a command named ``head`` may match, in layer order."""
        found = self._cache.get(head)
        if found is None:
            if SENTINEL in head or "*" in head:
                found = self.rules
            else:
                picked = {id(r): r for r in (*self._by_head.get(head, ()), *self._wild)}
                found = tuple(sorted(picked.values(), key=lambda r: self._order[id(r)]))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[head] = found
        return found

    def first_match(self, forms: Sequence[str], *, exact: bool) -> tuple[Rule, str] | None:
        """The first rule (layer order) matching any of ``forms``, with the form.

        ``exact``: the whole form must match (allow); otherwise a rule that may match for
        some value of the run-time parts (``"\\x00"``) holds (deny, ask).
        """
        best: tuple[int, Rule, str] | None = None
        for form in forms:
            for rule in self.for_head(form.split(" ", 1)[0]):
                if best is not None and self._order[id(rule)] >= best[0]:
                    break
                pattern = rule.command
                if pattern is None or (pattern.matches(form) if exact else pattern.may_match(form)):
                    best = (self._order[id(rule)], rule, form)
                    break
        return None if best is None else (best[1], best[2])

    def first_suffix(self, suffixes: Sequence[Suffixes]) -> tuple[Rule, str] | str | None:
        """The first rule matching a word suffix, with that suffix; a reason string when a
        suffix holding run-time parts is too long to intersect; ``None`` when none matches."""
        best: tuple[int, Rule, str] | None = None
        for suffix in suffixes:
            unknown = SENTINEL in suffix.text
            if unknown and len(suffix.offsets) > MAX_UNKNOWN_SUFFIXES:
                return (f"more than {MAX_UNKNOWN_SUFFIXES} arguments around ones known only at run time, too many "
                        "to check against the rules")
            for head, offsets in suffix.heads.items():
                for rule in self.for_head(head):
                    if best is not None and self._order[id(rule)] >= best[0]:
                        break
                    pattern = rule.command
                    if pattern is None:
                        continue  # specifier-less rules match the command itself
                    for offset in offsets:
                        hit = (pattern.may_match(_basename_first(suffix.text[offset:])) if unknown
                               else pattern.matches_at(suffix.text, offset))
                        if hit:
                            best = (self._order[id(rule)], rule, suffix.text[offset:])
                            break
                    if best is not None and best[1] is rule:
                        break
        return None if best is None else (best[1], best[2])


def _basename_first(text: str) -> str:
    first, space, rest = text.partition(" ")
    return first.rsplit("/", 1)[-1] + space + rest


class PathIndex:
    """A quick test whether any of one list's path rules may match a path: the rules'
    gitignore regexes joined into one per base, so a path no rule matches costs one regex
    per base instead of one per rule.

    Args:
        rules: the rules (specifier-less rules match every path).
    """

    def __init__(self, rules: Iterable[Rule]) -> None:
        rules = [r for r in rules if r.kind is RuleKind.NAME or r.path is not None]
        self.every = any(r.kind is RuleKind.NAME for r in rules)
        groups: dict[tuple[str, int], list[PathPattern]] = {}
        for rule in rules:
            if rule.path is not None:
                groups.setdefault((rule.path.base, rule.path.ups), []).append(rule.path)
        self._groups: list[tuple[PathPattern, re.Pattern[str], re.Pattern[str]]] = []
        self._memo: dict[tuple[str, bool, Bases], bool] = {}
        for patterns in groups.values():
            text = "|".join(f"(?:{p.regex.pattern.replace('(?P<ps_d>', '(?:')})" for p in patterns)
            self._groups.append((patterns[0], re.compile(text), re.compile(text, re.IGNORECASE)))

    def may_match(self, spells: Iterable[Spelling], bases: Bases) -> bool:
        """False when no rule of the list matches any of ``spells`` (exact: a True may
        still be a match of a rule that then fails the per-rule test only in form)."""
        if self.every:
            return True
        memo = self._memo
        for spelling in spells:
            key = (spelling.path, spelling.is_dir, bases)
            found = memo.get(key)
            if found is None:
                found = self._match(spelling, bases)
                if len(memo) >= 8192:
                    memo.clear()
                memo[key] = found  # a pure string function: kept across decisions (bounded)
            if found:
                return True
        return False

    def _match(self, spelling: Spelling, bases: Bases) -> bool:
        for sample, regex, folded in self._groups:
            pattern = folded if bases.casefold else regex
            for base in sample.base_dirs(bases):
                rel = relative(spelling.path, base)
                if rel and pattern.match(rel + "/" if spelling.is_dir else rel):
                    return True
        return False
