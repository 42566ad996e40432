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

import os
from collections.abc import Iterable

from ._facts import CallFacts
from ._judge_paths import DEFAULT_SEARCH_LIMIT
from ._judge_shell import ShellJudge
from ._memo import RepeatMemo
from ._names import SEARCH_TOOLS, rule_keys_for_call
from ._paths import Bases
from ._pool import Pool, Tally, UnitMatches, verdict
from ._syntax import Rule, RuleKind
from ._verdict import RuleMatch, RuleVerdict

__all__ = ["DEFAULT_SEARCH_LIMIT", "CallFacts", "RuleEngine", "RuleMatch", "RuleVerdict"]


class RuleEngine(ShellJudge):
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
        self._pools: dict[tuple[frozenset[str], bool], Pool] = {}
        self._unit_memo: RepeatMemo[tuple[object, ...], UnitMatches] = RepeatMemo(8192)
        self._bases: dict[str, Bases] = {}
        self._edit_pool = self._builtin_pool({"edit", "write"})
        self._read_pool = self._builtin_pool({"read"})
        self._guard_pool = Pool.of(self._ordered([*self._read_pool.deny, *self._edit_pool.deny]))

    # -- rule selection ---------------------------------------------------------------

    def _builtin_pool(self, keys: set[str]) -> Pool:
        found = [r for k in sorted(keys) for r in self._by_key.get(k, ())]
        found += [r for r in self._patterned if r.names_match(frozenset(keys))]
        return Pool.of(self._ordered(found))

    def _ordered(self, rules: Iterable[Rule]) -> list[Rule]:
        unique = {id(r): r for r in rules}
        return sorted(unique.values(), key=lambda r: self._position[id(r)])

    def rules_for(self, facts: CallFacts) -> Pool:
        """The rules whose tool part names this call (cached per set of names)."""
        key = (facts.names, facts.builtin)
        pool = self._pools.get(key)
        if pool is None:
            if len(self._pools) > 4096:
                self._pools.clear()
                self._unit_memo.forget()  # keyed by pool identity
            pool = self._pools[key] = self._select(facts)
        return pool

    def _select(self, facts: CallFacts) -> Pool:
        found: list[Rule] = []
        if facts.builtin:
            for key in rule_keys_for_call(facts.canonical_names):
                found.extend(self._by_key.get(key, ()))
        else:
            for name in facts.names:
                found.extend(self._by_name.get(name, ()))
        every_name = facts.names | facts.canonical_names
        found.extend(r for r in self._patterned if r.names_match(every_name))
        return Pool.of(self._ordered(found))

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
        tally = Tally()
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
        return verdict(facts.label, tally)

    def _whole_call(self, facts: CallFacts, pool: Pool, tally: Tally) -> None:
        tally.parts += 1
        subject = f"every {facts.label} call"
        for rules, bucket in ((pool.deny, tally.deny), (pool.ask, tally.ask), (pool.allow, tally.allow)):
            for rule in rules:
                if rule.kind is RuleKind.NAME:
                    bucket.append(RuleMatch(rule, subject))
                    break
        if not tally.allow:
            tally.unallowed.append(f"the {facts.label} call")


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))

