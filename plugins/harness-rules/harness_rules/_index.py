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

from ._memo import RepeatMemo
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
        self._heads: dict[str, tuple[Rule, ...]] = {}
        for head in self._by_head:
            picked = {id(r): r for r in (*self._by_head[head], *self._wild)}
            self._heads[head] = tuple(sorted(picked.values(), key=lambda r: self._order[id(r)]))
        self._wild_only: tuple[Rule, ...] = tuple(self._wild)
        # one regex per command name: its rules as alternatives in layer order, so the first
        # alternative that matches is the first rule (its group names the rule's position)
        self._joined: dict[str, re.Pattern[str] | None] = {
            head: self._join(rules, deny=False) for head, rules in self._heads.items()}
        self._joined_wild = self._join(self._wild_only, deny=False)
        self._joined_deny: dict[str, re.Pattern[str] | None] = {
            head: self._join(rules, deny=True) for head, rules in self._heads.items()}
        self._joined_deny_wild = self._join(self._wild_only, deny=True)

    def _join(self, rules: Sequence[Rule], *, deny: bool) -> re.Pattern[str] | None:
        """The alternatives of ``rules`` (``deny``: their :attr:`deny_regex`, rules without a
        specifier left out, as :meth:`first_suffix` skips them; else their :attr:`regex`,
        specifier-less rules matching everything)."""
        parts: list[str] = []
        for rule in rules:
            pattern = rule.command
            if pattern is None:
                if deny:
                    continue
                text = ".*"
            else:
                text = (pattern.deny_regex if deny else pattern.regex).pattern
            parts.append(f"(?P<r{self._order[id(rule)]}>{text})")
        return re.compile("|".join(parts), re.DOTALL) if parts else None

    def _first(self, joined: re.Pattern[str] | None, text: str, start: int = 0) -> int | None:
        if joined is None:
            return None
        found = joined.fullmatch(text, start)
        return None if found is None else int(found.lastgroup[1:])  # type: ignore[index]

    def __bool__(self) -> bool:
        return bool(self.rules)

    def for_head(self, head: str) -> tuple[Rule, ...]:
        """The rules a command named ``head`` may match, in layer order."""
        found = self._heads.get(head)
        if found is not None:
            return found
        if SENTINEL in head or "*" in head:
            return self.rules
        return self._wild_only  # no rule names this command: only the wildcard ones may match

    def first_match(self, forms: Sequence[str], *, exact: bool) -> tuple[Rule, str] | None:
        """The first rule (layer order) matching any of ``forms``, with the form.

        ``exact``: the whole form must match (allow); otherwise a rule that may match for
        some value of the run-time parts (``"\\x00"``) holds (deny, ask).
        """
        best: tuple[int, Rule, str] | None = None
        for form in forms:
            head = form.split(" ", 1)[0]
            if SENTINEL not in form and "*" not in head:  # one joined regex for the command name
                joined = self._joined.get(head, self._joined_wild)
                order = self._first(joined, form)
                if order is not None and (best is None or order < best[0]):
                    best = (order, self.rules[order], form)
                continue
            for rule in self.for_head(head):
                if best is not None and self._order[id(rule)] >= best[0]:
                    break
                pattern = rule.command
                if pattern is None or (pattern.matches(form) if exact else pattern.may_match(form)):
                    best = (self._order[id(rule)], rule, form)
                    break
        return None if best is None else (best[1], best[2])

    def may_match_suffix_of(self, heads: Iterable[str]) -> bool:
        """False when :meth:`first_suffix` finds nothing in any word suffix starting at a
        word with one of these names (basenames) - no rule names one of them and no rule's
        command name is a wildcard - so the suffixes need not be built. True may still
        find nothing."""
        if not self.rules:
            return False
        if self._joined_deny_wild is not None:
            return True
        joined = self._joined_deny
        for head in heads:  # noqa: SIM110  (a loop: no generator per call on the hot path)
            if head in joined or "*" in head or SENTINEL in head:
                return True
        return False

    def first_suffix(self, suffixes: Sequence[Suffixes]) -> tuple[Rule, str] | str | None:
        """The first rule matching a word suffix, with that suffix; a reason string when a
        suffix holding run-time parts is too long to intersect; ``None`` when none matches."""
        best: tuple[int, Rule, str] | None = None
        for suffix in suffixes:
            unknown = SENTINEL in suffix.text
            if unknown and len(suffix.offsets) > MAX_UNKNOWN_SUFFIXES:
                return (f"more than {MAX_UNKNOWN_SUFFIXES} arguments around ones known only at run time, too many "
                        "to check against the rules")
            text = suffix.text
            for head, offsets in suffix.heads.items():
                if not unknown and "*" not in head:  # the joined regex: the first rule matching at each offset
                    joined = self._joined_deny.get(head, self._joined_deny_wild)
                    if joined is None:
                        continue
                    for offset in offsets:
                        order = self._first(joined, text, offset)
                        if order is not None and (best is None or order < best[0]):
                            best = (order, self.rules[order], text[offset:])
                    continue
                for rule in self.for_head(head):
                    if best is not None and self._order[id(rule)] >= best[0]:
                        break
                    pattern = rule.command
                    if pattern is None:
                        continue  # specifier-less rules match the command itself
                    for offset in offsets:
                        hit = (pattern.may_match(_basename_first(text[offset:])) if unknown
                               else pattern.matches_at(text, offset))
                        if hit:
                            best = (self._order[id(rule)], rule, text[offset:])
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
        self._memo: RepeatMemo[tuple[str, bool, Bases], bool] = RepeatMemo(8192)
        for patterns in groups.values():
            text = "|".join(f"(?:{p.regex.pattern.replace('(?P<ps_d>', '(?:')})" for p in patterns)
            self._groups.append((patterns[0], re.compile(text), re.compile(text, re.IGNORECASE)))

    def may_match(self, spells: Iterable[Spelling], bases: Bases) -> bool:
        """False when no rule of the list matches any of ``spells`` (exact: a True may
        still be a match of a rule that then fails the per-rule test only in form)."""
        if self.every:
            return True
        for spelling in spells:
            if self.may_match_path(spelling.path, spelling.is_dir, bases):
                return True
        return False

    def may_match_path(self, path: str, is_dir: bool, bases: Bases) -> bool:
        """:meth:`may_match` of one spelling given as a normalized absolute ``path`` and
        whether it is a directory."""
        if self.every:
            return True
        key = (path, is_dir, bases)
        found = self._memo.get(key)
        if found is None:
            found = self._memo.remember(key, self._match(path, is_dir, bases))  # pure: kept across decisions
        return found

    def _match(self, path: str, is_dir: bool, bases: Bases) -> bool:
        for sample, regex, folded in self._groups:
            pattern = folded if bases.casefold else regex
            for base in sample.base_dirs(bases):
                rel = relative(path, base)
                if rel and pattern.match(rel + "/" if is_dir else rel):
                    return True
        return False
