"""Judging the paths a call touches against path rules: every spelling of each path, and
what a directory (a search root, a directory argument) holds below it."""

from __future__ import annotations

import fnmatch
import glob as globlib
import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Final

from ._paths import Bases, PathPattern, Spelling, normalize, probe_tree, relative, spellings
from ._pool import Pool, Tally
from ._protect import PROTECT_LAYER
from ._resolve import Memo, resolve
from ._syntax import Action, Rule, RuleKind
from ._verdict import RuleMatch

__all__ = ["DEFAULT_SEARCH_LIMIT", "PathJudge", "denied_nowhere", "expand_glob"]

DEFAULT_SEARCH_LIMIT: Final = 100_000
"""Directory entries a search-root walk looks at before giving up (and asking)."""

_GLOB_LIMIT: Final = 200
_EXCLUDE_HINTS: Final = 20


def expand_glob(pattern: str, base: str) -> list[str]:
    """What the wildcard word ``pattern`` may expand to in ``base``: ``glob.glob(pattern,
    root_dir=base)`` (hidden names only for a pattern starting with ``.``, in directory
    order) of the pattern with bash's bracket expressions made :mod:`fnmatch`'s (``[^x]`` is
    ``[!x]``; one holding a character class, equivalence class or collating symbol,
    ``[[:alpha:]]``, ``[[=e=]]``, ``[[.a.]]``, whose members depend on the locale, is any
    one character: a superset, so no denied match is missed), without :mod:`glob`'s
    generator layers for the common one-component pattern."""
    if "[" in pattern:
        pattern = _BRACKETS.sub(_fnmatch_bracket, pattern)
    if "/" in pattern or not globlib.has_magic(pattern):
        return globlib.glob(pattern, root_dir=base, recursive=False)
    try:
        names = os.listdir(base)
    except (OSError, ValueError):
        return []
    match = _PATTERNS.get(pattern)
    if match is None:
        if len(_PATTERNS) >= 1024:
            _PATTERNS.clear()
        match = _PATTERNS[pattern] = re.compile(fnmatch.translate(pattern)).match
    hidden = pattern[0] == "."
    return [name for name in names if (hidden or name[0] != ".") and match(name) is not None]


_BRACKETS: Final = re.compile(r"\[([!^]?)(\]?(?:\[:[A-Za-z]+:\]|\[=[^]]*=\]|\[\.[^]]*\.\]|[^]])*)\]")
"""A bash bracket expression: an optional ``!``/``^``, then a ``]`` or members up to ``]``."""


def _fnmatch_bracket(found: re.Match[str]) -> str:
    negated, body = found.group(1), found.group(2)
    if "[:" in body or "[=" in body or "[." in body:
        return "?"
    return "[" + ("!" if negated else "") + body + "]"


def denied_nowhere(raw: str, cwd: str, pool: Pool, bases: Bases, memo: Memo) -> bool:
    """True when no deny rule of ``pool`` can match the path ``raw`` (no wildcard) of a
    command running in ``cwd``: it has one spelling (no symlink on the way, not below
    ``/proc``, no ``~``), which the joined deny index does not match. What
    :meth:`PathJudge._path` finds for a guarded argument in its common case, without its
    spelling objects; False sends the path there."""
    if not raw or raw[0] == "~" or "\x00" in raw or pool.deny_paths.every:
        return False
    path = raw if raw[0] == "/" else (cwd + raw if cwd.endswith("/") else cwd + "/" + raw)
    lit = normalize(path)
    if lit.startswith("/proc/") or lit == "/proc":
        return False
    found = resolve(path, cwd, bases.anchors, memo)
    if found.path != lit or found.unknown is not None:
        return False
    return not pool.deny_paths.may_match_path(lit, found.is_dir, bases)


def _shown(raw: str, origin: str | None) -> str:
    """A path as reasons show it: ``path `x``` or ```x` (origin)``."""
    return f"path `{raw}`" if origin is None else f"`{raw}` ({origin})"


_PATTERNS: dict[str, Callable[[str], re.Match[str] | None]] = {}
"""Compiled one-component wildcard patterns (bounded)."""


class PathJudge:
    """The path half of :class:`~harness_rules.RuleEngine`.

    Attributes:
        home: the home directory ``~`` resolves to.
        search_limit: directory entries a walk below a directory may look at.
    """

    home: str
    search_limit: int

    def _path(self, raw: str, cwds: Sequence[str | None], pool: Pool, tally: Tally, bases: Bases, *,
              required: bool, origin: str | None = None, search: bool = False, glob: bool = False,
              deny_only: bool = False, probe: bool = False, excludes: Sequence[str] = (),
              can_exclude: bool = False) -> None:
        tally.parts += 1
        root = bases.workspace[0]
        if "\x00" in raw:
            tally.unsure.append(f"path {raw!r} holds a NUL character")
            return
        uncertain = None in cwds and not raw.startswith(("/", "~"))
        raws = [raw]
        if glob:
            for cwd in cwds:
                base = cwd or root
                found = expand_glob(raw, base)  # `*` skips dot files, as in bash
                if len(found) > _GLOB_LIMIT and pool.unknowns is not None:
                    tally.unsure.append(f"`{raw}` expands to more than {_GLOB_LIMIT} paths, too many to check")
                raws.extend(found[:_GLOB_LIMIT])
        if len(cwds) == 1 and len(raws) == 1:
            spells = list(spellings(raw, cwds[0] or root, self.home, bases, tally.lstats))
        else:
            spelled: dict[str, Spelling] = {}
            for cwd in cwds:
                for one in raws:
                    for sp in spellings(one, cwd or root, self.home, bases, tally.lstats):
                        spelled.setdefault(sp.path, sp)
            spells = list(spelled.values())
        if uncertain and pool.unknowns is not None:  # relative to a directory known only at run time
            tally.unsure.append(f"{_shown(raw, origin)}: the directory it is relative to is only known at run time")
        if deny_only and not probe and not pool.deny_paths.may_match(spells, bases):
            for sp in spells:
                if sp.unknown:
                    break
            else:
                return  # the guard's common case: no deny rule can match any spelling
        shown = _shown(raw, origin)
        strange = next((sp.unknown for sp in spells if sp.unknown), None)
        if strange is not None and (pool.unknowns is not None or (required and pool.allow)):
            tally.unsure.append(f"{shown}: {strange}, which the rules cannot resolve")
        # denials and asks: any spelling, and anything below a directory
        for rules, index, bucket in ((pool.deny, pool.deny_paths, tally.deny),
                                     (() if deny_only else pool.ask, pool.ask_paths, tally.ask)):
            if not rules or not index.may_match(spells, bases):
                continue
            for rule in rules:
                hit = self._path_hit(rule, spells, bases)
                if hit is not None:
                    bucket.append(RuleMatch(rule, f"{shown} = {hit}" if hit != raw else shown))
                    break
        dirs = [s.path for s in spells if s.is_dir] if probe else []
        if dirs and not tally.deny:
            self._probe(dirs, pool, tally, bases, shown, search, deny_only, excludes, can_exclude and search)
        if deny_only or not required:
            return
        if uncertain:
            if pool.unknowns is None:
                tally.unsure.append(f"{shown}: the directory it is relative to is only known at run time")
            return
        for sp in spells:
            if not sp.is_dir and not pool.allow_paths.may_match((sp,), bases):
                tally.unallowed.append(shown if sp.path == raw else f"{shown} = {sp.path}")
                return  # no allow rule matches this file (one joined regex instead of one per rule)
            allowed = next((r for r in pool.allow if self._path_allows(r, sp, bases)), None)
            if allowed is None:
                tally.unallowed.append(shown if sp.path == raw else f"{shown} = {sp.path}")
                return
            tally.allow.append(RuleMatch(allowed, f"{shown} = {sp.path}"))

    @staticmethod
    def _path_hit(rule: Rule, spells: Sequence[Spelling], bases: Bases) -> str | None:
        if rule.kind is RuleKind.NAME:
            return spells[0].path if spells else ""
        pattern = rule.path
        if pattern is None:
            return None
        for sp in spells:
            if pattern.matches(sp.path, sp.is_dir, bases):
                return sp.path
        return None

    @staticmethod
    def _path_allows(rule: Rule, sp: Spelling, bases: Bases) -> bool:
        if rule.kind is RuleKind.NAME:
            return True
        pattern = rule.path
        if pattern is None:
            return False
        return pattern.covers(sp.path, bases) if sp.is_dir else pattern.matches(sp.path, False, bases)

    def _probe(self, dirs: Sequence[str], pool: Pool, tally: Tally, bases: Bases, shown: str,
               search: bool, deny_only: bool, excludes: Sequence[str] = (), can_exclude: bool = False) -> None:
        candidates: list[tuple[Rule, PathPattern]] = []
        for rule in (*pool.deny, *(() if deny_only else pool.ask)):
            if rule.origin.layer == PROTECT_LAYER:
                continue  # they guard the rules files against writes, not what a tree holds (`rg x .`)
            if rule.path is not None:  # even a pattern out of reach: a symlink may point at it
                candidates.append((rule, rule.path))
        if not candidates:
            return
        n_deny = sum(1 for r, _ in candidates if r.action is Action.DENY)
        root = bases.workspace[-1]  # the tools join `exclude` entries to the resolved root
        left_out = [normalize(os.path.join(root, e)) for e in excludes if isinstance(e, str) and e]
        result = probe_tree(dirs, [p for _, p in candidates], bases, limit=self.search_limit,
                            stop_at=range(n_deny), exclude=left_out, collect=_EXCLUDE_HINTS if can_exclude else 0,
                            memo=tally.lstats)
        what = "search root" if search else "directory"
        hint = ""
        if result.hits:
            shown_hits = [relative(h, root) or h for h in result.hits]
            more = " (and maybe more)" if len(shown_hits) >= _EXCLUDE_HINTS else ""
            hint = (f"; search again with `exclude`: {json.dumps(shown_hits)}{more} (workspace-relative), and the "
                    "denied paths are left out")
        for index, found in sorted(result.found.items()):
            rule = candidates[index][0]
            bucket = tally.deny if rule.action is Action.DENY else tally.ask
            bucket.append(RuleMatch(rule, f"{shown}: the {what} contains `{found}`{hint if bucket is tally.deny else ''}"))
        if result.unknown is not None and not tally.deny:
            tally.unsure.append(f"{shown}: the {what} holds a link the rules cannot resolve, {result.unknown}")
        if result.truncated and not tally.deny:
            tally.unsure.append(
                f"{shown}: the {what} holds more than {self.search_limit} entries, too many to check "
                f"against `{candidates[0][0].text}`"
            )

