"""Deciding one call against a set of rules.

The engine looks at everything a call touches - each path (every spelling of it), each
command that would run, each file a command line writes or reads - and combines:

* **deny** when any rule of the ``deny`` list matches any of them;
* else **ask** when any ``ask`` rule matches, or when something cannot be judged (an
  unparsable command, a command name computed at run time, a built-in call whose input
  lacks its command or path...) and rules exist that would have judged it;
* else **allow** when every part that needs it is allowed (every spelling of every path,
  every command, every written file);
* else **none**: the rules have no opinion and the permission mode decides.

The order of rules and the layer they come from never change the outcome; the reported
rule is the first one found in layer order (user, project, local, code).
"""

from __future__ import annotations

import glob as globlib
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

import attrs

from harness_core import ApprovalDecision, ApprovalStatus, ToolResources

from ._index import CommandIndex, PathIndex
from ._names import SEARCH_TOOLS, canonical_tool, rule_keys_for_call
from ._paths import Bases, PathPattern, Spelling, normalize, probe_tree, relative, spellings
from ._resolve import Memo
from ._shell import CommandUnit, Opaque, PathAccess, analyze_command, show_command
from ._syntax import Action, Rule, RuleKind

__all__ = ["DEFAULT_SEARCH_LIMIT", "CallFacts", "RuleEngine", "RuleMatch", "RuleVerdict"]

DEFAULT_SEARCH_LIMIT: Final = 100_000
"""Directory entries a search-root walk looks at before giving up (and asking)."""

_GLOB_LIMIT: Final = 200
_EXCLUDE_HINTS: Final = 20

NO_FILE_COMMANDS: Final = frozenset({
    "echo", "printf", "true", "false", ":", "test", "[", "basename", "dirname", "which", "type", "export",
    "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "hash", "sleep", "seq", "kill",
    "expr", "pwd", "cd", "pushd", "popd", "exit", "return", "shift", "set", "shopt", "wait", "jobs", "trap",
    "umask", "ulimit", "times", "read", "getopts", "let", "break", "continue", "printenv", "date", "id",
    "whoami", "uname", "yes", "nproc", "tput", "clear", "command", "builtin",
})
"""Commands that never open their arguments as files: the shell guard does not check
their arguments against read and edit deny rules (``echo .env >> .gitignore``)."""

Decision = Literal["allow", "ask", "deny", "none"]

_STATUS: Final[dict[str, ApprovalStatus]] = {
    "allow": ApprovalStatus.APPROVED,
    "ask": ApprovalStatus.USER_APPROVAL,
    "deny": ApprovalStatus.DENIED,
}


@attrs.frozen
class RuleMatch:
    """One rule that matched part of a call.

    Attributes:
        rule: the rule.
        subject: what it matched (a path, a command, a tool name), as shown in reasons.
    """

    rule: Rule
    subject: str

    def to_json(self) -> dict[str, Any]:
        """``{"rule", "action", "source", "line", "layer", "subject"}``."""
        origin = self.rule.origin
        return {"rule": self.rule.text, "action": self.rule.action.value, "source": origin.source,
                "line": origin.line, "layer": origin.layer, "subject": self.subject}


@attrs.frozen
class RuleVerdict:
    """What the rules say about one call.

    Attributes:
        decision: ``allow``, ``ask``, ``deny`` or ``none`` (no opinion).
        reason: a sentence saying why; a denial's reason is what the model reads.
        rule: the deciding rule (``None`` for ``none`` and for asks about what could not
            be judged).
        subject: what the deciding rule matched.
        matches: every rule that matched, deny first.
    """

    decision: Decision
    reason: str
    rule: Rule | None = None
    subject: str | None = None
    matches: tuple[RuleMatch, ...] = ()

    def details(self) -> dict[str, Any]:
        """Evidence for :attr:`harness_core.ApprovalDecision.details`: ``rule``, ``source``,
        ``line``, ``layer``, ``decision``, ``subject`` and ``matches``."""
        origin = self.rule.origin if self.rule is not None else None
        return {
            "rule": self.rule.text if self.rule is not None else None,
            "source": origin.source if origin is not None else None,
            "line": origin.line if origin is not None else None,
            "layer": origin.layer if origin is not None else None,
            "decision": self.decision,
            "subject": self.subject,
            "matches": [m.to_json() for m in self.matches],
        }

    def to_approval(self) -> ApprovalDecision | None:
        """The explicit :class:`~harness_core.ApprovalDecision` (``None`` for ``none``)."""
        status = _STATUS.get(self.decision)
        if status is None:
            return None
        return ApprovalDecision(status, self.reason, details=self.details())

    def to_json(self) -> dict[str, Any]:
        """``{"decision", "rule", "source", "line", "layer", "reason", "subject", "matches"}``."""
        details = self.details()
        return {"decision": self.decision, "rule": details["rule"], "source": details["source"],
                "line": details["line"], "layer": details["layer"], "reason": self.reason,
                "subject": self.subject, "matches": details["matches"]}


@attrs.frozen
class CallFacts:
    """What the engine needs to know about a call.

    Attributes:
        names: every name the call is known by (harness-facing, native, declared).
        builtin: a runtime built-in (names are mapped to common names) rather than a host
            or MCP tool (names compared as written).
        resources: what the call touches, or ``None`` (matched by name only).
        workspace_root: absolute directory relative paths and ``./`` patterns resolve in.
        label: the tool name to show in reasons.
        missing: what the call's input lacks for the rules to judge it (a ``bash`` call
            without a command, a ``read`` without a path), or ``None``. Such a call is asked
            about when deny or ask rules could have applied to it.
        excludes: for a search whose tool takes an ``exclude`` list (the built-in
            harness's grep and glob), the workspace-relative paths it leaves out.
        can_exclude: the search tool declares an ``exclude`` input: a denial then names
            the paths to exclude, and a call excluding them is judged without them.
    """

    names: frozenset[str]
    builtin: bool
    resources: ToolResources | None
    workspace_root: str
    label: str
    missing: str | None = None
    excludes: tuple[str, ...] = ()
    can_exclude: bool = False
    canonical_names: frozenset[str] = attrs.field(init=False, eq=False, repr=False)
    """The names mapped to common names (built-ins only)."""

    def __attrs_post_init__(self) -> None:
        canonical = frozenset(canonical_tool(n) for n in self.names) if self.builtin else self.names
        object.__setattr__(self, "canonical_names", canonical)


@attrs.frozen
class _Pool:
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    allow: tuple[Rule, ...] = ()
    deny_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    ask_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    allow_index: CommandIndex = attrs.field(init=False, eq=False, repr=False)
    deny_paths: PathIndex = attrs.field(init=False, eq=False, repr=False)
    ask_paths: PathIndex = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "deny_paths", PathIndex(self.deny))
        object.__setattr__(self, "ask_paths", PathIndex(self.ask))
        object.__setattr__(self, "deny_index", CommandIndex(self.deny))
        object.__setattr__(self, "ask_index", CommandIndex(self.ask))
        object.__setattr__(self, "allow_index", CommandIndex(self.allow))

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> _Pool:
        rules = list(rules)
        return cls(*(tuple(r for r in rules if r.action is a) for a in (Action.DENY, Action.ASK, Action.ALLOW)))

    def __bool__(self) -> bool:
        return bool(self.deny or self.ask or self.allow)


@attrs.frozen
class _UnitMatches:
    """The command rules one unit matches: the first deny, ask and allow rule (with the
    subject to report) and the reasons it cannot be judged."""

    shown: str
    deny: RuleMatch | None
    ask: RuleMatch | None
    unsure: tuple[str, ...]
    allow: RuleMatch | None


@attrs.define
class _Tally:
    """Matches found while judging the parts of one call."""

    deny: list[RuleMatch] = attrs.Factory(list)
    ask: list[RuleMatch] = attrs.Factory(list)
    allow: list[RuleMatch] = attrs.Factory(list)
    unallowed: list[str] = attrs.Factory(list)
    unsure: list[str] = attrs.Factory(list)
    parts: int = 0
    lstats: Memo = attrs.Factory(dict)  # one decision sees one file system state


class RuleEngine:
    """Decides calls against a fixed list of rules (see the module docs).

    Args:
        rules: the rules of every layer, in layer order.
        home: the home directory ``~`` patterns and paths resolve against.
        search_limit: directory entries a search-root walk may look at.
        guard_arguments: deny a shell command when one of its arguments names (or, as a
            wildcard or brace expansion, could expand to) a path a ``read``, ``edit`` or
            ``write`` deny rule covers (``cat .env``, ``cp x .git/config``), and ask when
            an argument is only known at run time (``cat "$F"``) while such rules exist.
            On by default; ``False`` leaves arguments to the program (redirections are
            still checked, as the shell itself opens those files).
    """

    def __init__(self, rules: Iterable[Rule], *, home: str, search_limit: int = DEFAULT_SEARCH_LIMIT,
                 guard_arguments: bool = True) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.home = home
        self.search_limit = search_limit
        self.guard_arguments = guard_arguments
        self._by_key: dict[str, list[Rule]] = {}
        self._by_name: dict[str, list[Rule]] = {}
        self._patterned: list[Rule] = []
        for rule in self.rules:
            if rule.name_regex is not None or rule.mcp_server is not None:
                self._patterned.append(rule)
            else:
                self._by_key.setdefault(rule.key, []).append(rule)
                self._by_name.setdefault(rule.tool, []).append(rule)
        self._position = {id(rule): index for index, rule in enumerate(self.rules)}
        self._pools: dict[tuple[frozenset[str], bool], _Pool] = {}
        self._unit_memo: dict[tuple[int, CommandUnit], _UnitMatches] = {}
        self._bases: dict[str, Bases] = {}
        self._edit_pool = self._builtin_pool({"edit", "write"})
        self._read_pool = self._builtin_pool({"read"})
        self._guard_pool = _Pool.of(self._ordered([*self._read_pool.deny, *self._edit_pool.deny]))

    # -- rule selection ---------------------------------------------------------------

    def _builtin_pool(self, keys: set[str]) -> _Pool:
        found = [r for k in sorted(keys) for r in self._by_key.get(k, ())]
        found += [r for r in self._patterned if r.names_match(frozenset(keys))]
        return _Pool.of(self._ordered(found))

    def _ordered(self, rules: Iterable[Rule]) -> list[Rule]:
        unique = {id(r): r for r in rules}
        return sorted(unique.values(), key=lambda r: self._position[id(r)])

    def rules_for(self, facts: CallFacts) -> _Pool:
        """The rules whose tool part names this call (cached per set of names)."""
        key = (facts.names, facts.builtin)
        pool = self._pools.get(key)
        if pool is None:
            if len(self._pools) > 4096:
                self._pools.clear()
                self._unit_memo.clear()  # keyed by pool identity
            pool = self._pools[key] = self._select(facts)
        return pool

    def _select(self, facts: CallFacts) -> _Pool:
        found: list[Rule] = []
        if facts.builtin:
            for key in rule_keys_for_call(facts.canonical_names):
                found.extend(self._by_key.get(key, ()))
        else:
            for name in facts.names:
                found.extend(self._by_name.get(name, ()))
        every_name = facts.names | facts.canonical_names
        found.extend(r for r in self._patterned if r.names_match(every_name))
        return _Pool.of(self._ordered(found))

    # -- deciding ---------------------------------------------------------------------

    def decide(self, facts: CallFacts) -> RuleVerdict:
        """Decide one call.

        Returns:
            A :class:`RuleVerdict`; ``none`` when no rule has an opinion.
        """
        pool = self.rules_for(facts)
        resources = facts.resources
        is_shell = (resources is not None and resources.command is not None) or "bash" in facts.canonical_names
        if not pool and not (is_shell and (self._edit_pool or self._read_pool)):
            return RuleVerdict("none", f"no rule names the {facts.label} tool")
        bases = self._bases.get(facts.workspace_root)
        if bases is None:
            if len(self._bases) > 256:
                self._bases.clear()
            bases = self._bases[facts.workspace_root] = Bases.for_root(_absolute(facts.workspace_root), self.home)
        root = bases.workspace[0]
        tally = _Tally()
        if resources is not None:
            search = bool(facts.canonical_names & SEARCH_TOOLS) if facts.builtin else False
            paths = list(resources.paths)
            if search and not paths:
                paths = ["."]
            for raw in paths:
                self._path(raw, (root,), pool, tally, bases, required=True, search=search, probe=True,
                           excludes=facts.excludes if facts.can_exclude else (), can_exclude=facts.can_exclude)
            if resources.command is not None:
                self._shell(resources.command, root, pool, tally, bases)
        if tally.parts == 0:
            self._whole_call(facts, pool, tally)
        if facts.missing is not None and not tally.deny:
            restrictive = [r for r in (*pool.deny, *pool.ask) if r.kind is not RuleKind.NAME]
            if is_shell:
                restrictive += [*self._edit_pool.deny, *self._edit_pool.ask, *self._read_pool.deny,
                                *self._read_pool.ask]
            if restrictive:
                tally.unsure.append(f"{facts.missing}, and rules such as `{restrictive[0].text}` would have "
                                    "judged it")
        return _verdict(facts, tally)

    def _whole_call(self, facts: CallFacts, pool: _Pool, tally: _Tally) -> None:
        tally.parts += 1
        subject = f"every {facts.label} call"
        for rules, bucket in ((pool.deny, tally.deny), (pool.ask, tally.ask), (pool.allow, tally.allow)):
            for rule in rules:
                if rule.kind is RuleKind.NAME:
                    bucket.append(RuleMatch(rule, subject))
                    break
        if not tally.allow:
            tally.unallowed.append(f"the {facts.label} call")

    # -- paths ------------------------------------------------------------------------

    def _path(self, raw: str, cwds: Sequence[str | None], pool: _Pool, tally: _Tally, bases: Bases, *,
              required: bool, origin: str | None = None, search: bool = False, glob: bool = False,
              deny_only: bool = False, probe: bool = False, excludes: Sequence[str] = (),
              can_exclude: bool = False) -> None:
        tally.parts += 1
        root = bases.workspace[0]
        if "\x00" in raw:
            tally.unsure.append(f"path {raw!r} holds a NUL character")
            return
        uncertain = any(c is None for c in cwds) and not os.path.isabs(raw) and not raw.startswith("~")
        raws = [raw]
        if glob:
            for cwd in cwds:
                base = cwd or root
                found = globlib.glob(raw, root_dir=base, recursive=False)  # `*` skips dot files, as in bash
                if len(found) > _GLOB_LIMIT and (pool.deny or pool.ask):
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
        if deny_only and not probe and not pool.deny_paths.may_match(spells, bases) and not any(
            sp.unknown for sp in spells
        ):
            return  # the guard's common case: no deny rule can match any spelling
        shown = f"path `{raw}`" if origin is None else f"`{raw}` ({origin})"
        strange = next((sp.unknown for sp in spells if sp.unknown), None)
        if strange is not None and (pool.deny or pool.ask or (required and pool.allow)):
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
            tally.unsure.append(f"{shown}: the directory it is relative to is only known at run time")
            return
        for sp in spells:
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

    def _probe(self, dirs: Sequence[str], pool: _Pool, tally: _Tally, bases: Bases, shown: str,
               search: bool, deny_only: bool, excludes: Sequence[str] = (), can_exclude: bool = False) -> None:
        candidates: list[tuple[Rule, PathPattern]] = []
        for rule in (*pool.deny, *(() if deny_only else pool.ask)):
            if rule.path is not None:  # even a pattern out of reach: a symlink may point at it
                candidates.append((rule, rule.path))
        if not candidates:
            return
        n_deny = sum(1 for r, _ in candidates if r.action is Action.DENY)
        root = bases.workspace[0]
        left_out = [normalize(os.path.join(root, e)) for e in excludes if isinstance(e, str) and e]
        result = probe_tree(dirs, [p for _, p in candidates], bases, limit=self.search_limit,
                            stop_at=range(n_deny), exclude=left_out, collect=_EXCLUDE_HINTS if can_exclude else 0)
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
        if result.truncated and not tally.deny:
            tally.unsure.append(
                f"{shown}: the {what} holds more than {self.search_limit} entries, too many to check "
                f"against `{candidates[0][0].text}`"
            )

    # -- commands ---------------------------------------------------------------------

    def _shell(self, command: str, root: str, pool: _Pool, tally: _Tally, bases: Bases) -> None:
        analysis = analyze_command(command, root, self.home)
        for unit in analysis.units:
            self._unit(unit, pool, tally, bases)
        for access in analysis.paths:
            if access.access == "write":
                self._path(access.path, access.cwds, self._edit_pool, tally, bases, required=access.required,
                           origin=access.origin, glob=access.glob)
            else:
                self._read(access, tally, bases, deny_only=False)
        for item in analysis.opaque:
            self._opaque(item, pool, tally, bases, root)

    def _read(self, access: PathAccess, tally: _Tally, bases: Bases, *, deny_only: bool) -> None:
        if not self._read_pool:
            return
        pool = self._read_pool
        self._path(access.path, access.cwds, pool, tally, bases, required=False,
                   origin=access.origin, glob=access.glob, deny_only=deny_only)

    def _command_matches(self, unit: CommandUnit, pool: _Pool) -> _UnitMatches:
        """The command rules matching ``unit`` (no file system involved), memoized per
        pool and unit: a unit from a cached analysis is matched once."""
        key = (id(pool), unit)
        found = self._unit_memo.get(key)
        if found is not None:
            return found
        shown = f"command `{show_command(unit.text)}`"
        results: list[RuleMatch | None] = []
        unsure: list[str] = []
        for index in (pool.deny_index, pool.ask_index):
            match: RuleMatch | None = None
            if index:
                hit = index.first_match(unit.deny_forms, exact=False)
                if hit is not None:
                    match = RuleMatch(hit[0], shown)
                elif unit.suffixes:  # a command the analysis does not know may run one of its arguments
                    suffix = index.first_suffix(unit.suffixes)
                    if isinstance(suffix, str):
                        unsure.append(f"{shown}: {suffix}")
                    elif suffix is not None:
                        match = RuleMatch(suffix[0], f"command `{show_command(suffix[1])}`, which {shown} may run "
                                                     "(the rules do not know that command, so its arguments count "
                                                     "as a command)")
            results.append(match)
        allowed = pool.allow_index.first_match(unit.allow_forms, exact=True) if pool.allow_index else None
        found = _UnitMatches(shown, results[0], results[1], tuple(unsure),
                             None if allowed is None else RuleMatch(allowed[0], shown))
        if len(self._unit_memo) > 8192:
            self._unit_memo.clear()
        self._unit_memo[key] = found
        return found

    def _unit(self, unit: CommandUnit, pool: _Pool, tally: _Tally, bases: Bases) -> None:
        tally.parts += 1
        matches = self._command_matches(unit, pool)
        shown = matches.shown
        if matches.deny is not None:
            tally.deny.append(matches.deny)
        if matches.ask is not None:
            tally.ask.append(matches.ask)
        tally.unsure.extend(matches.unsure)
        if self.guard_arguments and self._guard_pool and unit.name not in NO_FILE_COMMANDS:
            guard = self._guard_pool
            for arg in unit.args:
                if not arg.glob and len(arg.cwds) == 1 and _absent(arg.path, arg.cwds[0], guard, bases, tally.lstats):
                    tally.parts += 1
                    continue
                self._path(arg.path, arg.cwds, guard, tally, bases, required=False, origin=arg.origin,
                           glob=arg.glob, deny_only=True)
            if unit.unknown_args is not None and not tally.deny:
                tally.unsure.append(f"{shown}: {unit.unknown_args}, and it may name a file a rule such as "
                                    f"`{self._guard_pool.deny[0].text}` denies")
        if not unit.required:
            return
        if matches.allow is not None:
            tally.allow.append(matches.allow)
            return
        tally.unallowed.append(shown)

    def _opaque(self, item: Opaque, pool: _Pool, tally: _Tally, bases: Bases, root: str) -> None:
        tally.parts += 1
        shown = f"`{show_command(item.text)}`"
        for index, bucket in ((pool.deny_index, tally.deny), (pool.ask_index, tally.ask)):
            if not index:
                continue
            named = next((r for r in index.rules if r.kind is RuleKind.NAME), None)
            if named is not None:
                bucket.append(RuleMatch(named, f"command {shown}"))
                continue
            found = index.first_suffix(item.deny_forms)
            if isinstance(found, tuple):
                bucket.append(RuleMatch(found[0], f"command `{show_command(found[1])}` in {shown}"))
        for target in item.write_targets:
            self._path(target, (root,), self._edit_pool, tally, bases, required=False,
                       origin=f"redirection in {shown}")
        if item.kind == "path":
            relevant = bool(self._edit_pool)
        elif item.kind == "read":
            relevant = bool(self._read_pool.deny or self._read_pool.ask)
        else:
            relevant = bool(pool or self._edit_pool or self._read_pool)
        if relevant:
            tally.unsure.append(f"{shown}: {item.reason}")


def _absent(raw: str, cwd: str | None, pool: _Pool, bases: Bases, memo: Memo) -> bool:
    """True when the relative path ``raw`` names nothing (its first component is missing
    in ``cwd``, so no symlink can redirect it) and no deny rule of ``pool`` matches it as
    written: one ``lstat`` instead of a full resolution, for the many arguments that are
    not files at all (``status``, ``-k``'s value, a branch name)."""
    if cwd is None or not raw or raw[0] in "/~" or "\x00" in raw:
        return False
    first = raw.split("/", 1)[0]
    if first in ("", ".", ".."):
        return False
    path = cwd + "/" + first
    if path in memo:
        if memo[path] is not None:
            return False
    else:
        try:
            memo[path] = os.lstat(path)
            return False
        except FileNotFoundError:
            memo[path] = None
        except (OSError, ValueError):
            return False
    lexical = Spelling(normalize(cwd + "/" + raw), False, False)
    return not pool.deny_paths.may_match((lexical,), bases)


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))


def _verdict(facts: CallFacts, tally: _Tally) -> RuleVerdict:
    matches = tuple(tally.deny + tally.ask + tally.allow)
    label = facts.label
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
