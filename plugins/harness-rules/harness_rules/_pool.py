"""The rules that apply to one call, indexed (:class:`Pool`); what one command unit matches
(:class:`UnitMatches`); and the matches gathered while judging one call (:class:`Tally`),
with the verdict they give (:func:`verdict`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import attrs

from ._index import CommandIndex, PathIndex
from ._protect import PROTECT_LAYER
from ._resolve import Memo
from ._syntax import Action, Rule
from ._units import show_command
from ._verdict import RuleMatch, RuleVerdict
from ._words import Suffixes

__all__ = ["Pool", "Tally", "UnitMatches", "match_unit", "verdict"]


@attrs.frozen
class Pool:
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    allow: tuple[Rule, ...] = ()
    deny_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    ask_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    allow_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    deny_paths: PathIndex = attrs.field(init=False, eq=False, repr=False)
    ask_paths: PathIndex = attrs.field(init=False, eq=False, repr=False)
    allow_paths: PathIndex = attrs.field(init=False, eq=False, repr=False)
    unknowns: Rule | None = attrs.field(init=False, eq=False, repr=False)
    """The first deny or ask rule that makes what cannot be judged asked about: the rules
    files' own protection (layer ``builtin``) never does (``cat "$F"`` stays undecided)."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "unknowns", next(
            (r for r in (*self.deny, *self.ask) if r.origin.layer != PROTECT_LAYER), None))
        object.__setattr__(self, "deny_paths", PathIndex(self.deny))
        object.__setattr__(self, "ask_paths", PathIndex(self.ask))
        object.__setattr__(self, "allow_paths", PathIndex(self.allow))
        object.__setattr__(self, "deny_index", CommandIndex(self.deny))
        object.__setattr__(self, "ask_index", CommandIndex(self.ask))
        object.__setattr__(self, "allow_index", CommandIndex(self.allow))

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> Pool:
        rules = list(rules)
        return cls(*(tuple(r for r in rules if r.action is a) for a in (Action.DENY, Action.ASK, Action.ALLOW)))

    def __bool__(self) -> bool:
        return bool(self.deny or self.ask or self.allow)

    @property
    def judges_unknowns(self) -> bool:
        """True when what cannot be judged (a path named at run time) matters to this pool:
        a deny or ask rule other than the rules files' own protection (:attr:`unknowns`),
        or any allow rule (such a path is then not known to be allowed)."""
        return self.unknowns is not None or bool(self.allow)


@attrs.frozen
class UnitMatches:
    """The command rules one unit matches: the first deny, ask and allow rule (with the
    subject to report) and the reasons it cannot be judged."""

    shown: str
    deny: RuleMatch | None
    ask: RuleMatch | None
    unsure: tuple[str, ...]
    allow: RuleMatch | None


def match_unit(pool: Pool, text: str, allow_forms: Sequence[str], deny_forms: Sequence[str],
               suffixes: Callable[[], Sequence[Suffixes]]) -> UnitMatches:
    """The command rules of ``pool`` one command unit matches (no file system involved).

    Args:
        pool: the rules.
        text: the unit's text (shown in reasons).
        allow_forms: an allow rule matching one of these (whole) allows the unit.
        deny_forms: a deny or ask rule that may match one of these holds.
        suffixes: the unit's word suffixes (a command the analysis does not know may run
            one of its arguments), called only when a deny or ask list has no direct match.
    """
    shown = f"command `{show_command(text)}`"
    results: list[RuleMatch | None] = []
    unsure: list[str] = []
    for index in (pool.deny_index, pool.ask_index):
        match: RuleMatch | None = None
        if index.rules:
            hit = index.first_match(deny_forms, exact=False)
            if hit is not None:
                match = RuleMatch(hit[0], shown)
            else:
                found = suffixes()
                suffix = index.first_suffix(found) if found else None
                if isinstance(suffix, str):
                    unsure.append(f"{shown}: {suffix}")
                elif suffix is not None:
                    match = RuleMatch(suffix[0], f"command `{show_command(suffix[1])}`, which {shown} may run "
                                                 "(the rules do not know that command, so its arguments count "
                                                 "as a command)")
        results.append(match)
    allowed = pool.allow_index.first_match(allow_forms, exact=True) if pool.allow_index.rules else None
    return UnitMatches(shown, results[0], results[1], tuple(unsure),
                       None if allowed is None else RuleMatch(allowed[0], shown))


@attrs.define
class Tally:
    """Matches found while judging the parts of one call."""

    deny: list[RuleMatch] = attrs.Factory(list)
    ask: list[RuleMatch] = attrs.Factory(list)
    allow: list[RuleMatch] = attrs.Factory(list)
    unallowed: list[str] = attrs.Factory(list)
    unsure: list[str] = attrs.Factory(list)
    parts: int = 0
    lstats: Memo = attrs.Factory(dict)  # one decision sees one file system state


def verdict(label: str, tally: Tally) -> RuleVerdict:
    """The verdict the matches of one call give (deny, then ask, then unsure, then allow)."""
    matches = tuple(tally.deny + tally.ask + tally.allow)
    if tally.deny:
        first = tally.deny[0]
        reason = (f"Denied by permission rule `{first.rule.text}` ({first.rule.origin.describe()}): "
                  f"the {label} call touches {first.subject}.")
        return RuleVerdict("deny", reason, first.rule, first.subject, matches)
    if tally.ask:
        first = tally.ask[0]
        reason = (f"Permission rule `{first.rule.text}` ({first.rule.origin.describe()}) asks before "
                  f"this {label} call: it touches {first.subject}.")
        return RuleVerdict("ask", reason, first.rule, first.subject, matches)
    if tally.unsure:
        reason = (f"The permission rules cannot judge this {label} call, so they ask: {tally.unsure[0]}."
                  " A command or path the rules cannot understand is never allowed automatically.")
        return RuleVerdict("ask", reason, None, tally.unsure[0], matches)
    if tally.allow and not tally.unallowed:
        rules = list(dict.fromkeys(m.rule for m in tally.allow))
        listed = ", ".join(f"`{r.text}` ({r.origin.describe()})" for r in rules[:3])
        more = f" and {len(rules) - 3} more" if len(rules) > 3 else ""
        reason = f"Allowed by permission rule{'s' if len(rules) > 1 else ''} {listed}{more}."
        return RuleVerdict("allow", reason, rules[0], tally.allow[0].subject, matches)
    if tally.allow and tally.unallowed:
        reason = (f"No rule decides this {label} call: some parts are allowed, but not "
                  f"{tally.unallowed[0]}.")
    elif tally.unallowed:
        reason = f"No rule decides this {label} call ({tally.unallowed[0]} matches no rule)."
    else:
        reason = f"No rule decides this {label} call."
    return RuleVerdict("none", reason, None, None, matches)
