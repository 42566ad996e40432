"""Judging shell commands: each command unit against command rules, each file the command
line writes or reads against edit and read rules, the shell guard (arguments naming denied
paths), and what cannot be understood."""

from __future__ import annotations

import os
from typing import Final

from ._judge_paths import PathJudge
from ._paths import Bases, normalize
from ._pool import Pool, Tally, UnitMatches
from ._resolve import Memo
from ._shell import CommandUnit, Opaque, PathAccess, analyze_command, show_command
from ._syntax import RuleKind
from ._verdict import RuleMatch

__all__ = ["NO_FILE_COMMANDS", "ShellJudge"]

NO_FILE_COMMANDS: Final = frozenset({
    "echo", "printf", "true", "false", ":", "test", "[", "basename", "dirname", "which", "type", "export",
    "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "hash", "sleep", "seq", "kill",
    "expr", "pwd", "cd", "pushd", "popd", "exit", "return", "shift", "set", "shopt", "wait", "jobs", "trap",
    "umask", "ulimit", "times", "read", "getopts", "let", "break", "continue", "printenv", "date", "id",
    "whoami", "uname", "yes", "nproc", "tput", "clear", "command", "builtin",
})
"""Commands that never open their arguments as files: the shell guard does not check
their arguments against read and edit deny rules (``echo .env >> .gitignore``)."""


class ShellJudge(PathJudge):
    """The shell half of :class:`~harness_rules.RuleEngine`.

    Attributes:
        guard_arguments: the shell guard is on (see :class:`~harness_rules.RuleEngine`).
    """

    guard_arguments: bool
    _edit_pool: Pool
    _read_pool: Pool
    _guard_pool: Pool
    _unit_memo: dict[tuple[object, ...], UnitMatches]

    def _shell(self, command: str, root: str, pool: Pool, tally: Tally, bases: Bases) -> None:
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

    def _read(self, access: PathAccess, tally: Tally, bases: Bases, *, deny_only: bool) -> None:
        if not self._read_pool:
            return
        pool = self._read_pool
        self._path(access.path, access.cwds, pool, tally, bases, required=False,
                   origin=access.origin, glob=access.glob, deny_only=deny_only)

    def _command_matches(self, unit: CommandUnit, pool: Pool) -> UnitMatches:
        """The command rules matching ``unit`` (no file system involved), memoized per
        pool and unit: a unit from a cached analysis is matched once."""
        key = (id(pool), unit.text, unit.allow_forms, unit.deny_forms, unit.suffixes)  # all the match reads
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
        found = UnitMatches(shown, results[0], results[1], tuple(unsure),
                             None if allowed is None else RuleMatch(allowed[0], shown))
        if len(self._unit_memo) > 8192:
            self._unit_memo.clear()
        self._unit_memo[key] = found
        return found

    def _unit(self, unit: CommandUnit, pool: Pool, tally: Tally, bases: Bases) -> None:
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
            lstats = tally.lstats
            for arg in unit.args:
                cwds = arg.cwds
                if not arg.glob and len(cwds) == 1 and _absent(arg.path, cwds[0], guard, bases, lstats):
                    tally.parts += 1
                    continue
                self._path(arg.path, arg.cwds, guard, tally, bases, required=False, origin=arg.origin,
                           glob=arg.glob, deny_only=True, probe=arg.tree)
            if unit.unknown_args is not None and not tally.deny:
                tally.unsure.append(f"{shown}: {unit.unknown_args}, and it may name a file a rule such as "
                                    f"`{self._guard_pool.deny[0].text}` denies")
        if not unit.required:
            return
        if matches.allow is not None:
            tally.allow.append(matches.allow)
            return
        tally.unallowed.append(shown)

    def _opaque(self, item: Opaque, pool: Pool, tally: Tally, bases: Bases, root: str) -> None:
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


def _absent(raw: str, cwd: str | None, pool: Pool, bases: Bases, memo: Memo) -> bool:
    """True when the relative path ``raw`` names nothing (its first component is missing
    in ``cwd``, so no symlink can redirect it) and no deny rule of ``pool`` matches it as
    written: one ``lstat`` instead of a full resolution, for the many arguments that are
    not files at all (``status``, ``-k``'s value, a branch name)."""
    if cwd is None or not raw or raw[0] in "/~" or "\x00" in raw:
        return False
    first = raw.partition("/")[0]
    if first == "." or first == "..":
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
    return not pool.deny_paths.may_match_path(normalize(cwd + "/" + raw), False, bases)


