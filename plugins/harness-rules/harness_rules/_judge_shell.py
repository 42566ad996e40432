"""Judging shell commands: each command unit against command rules, each file the command
line writes or reads against edit and read rules, the shell guard (arguments naming denied
paths), and what cannot be understood."""

from __future__ import annotations

from ._judge_plain import NO_FILE_COMMANDS, PlainLineJudge
from ._paths import Bases
from ._pool import Pool, Tally, UnitMatches, match_unit
from ._shell import CommandUnit, Opaque, PathAccess, analyze_command, show_command
from ._syntax import RuleKind
from ._verdict import RuleMatch

__all__ = ["NO_FILE_COMMANDS", "ShellJudge"]


class ShellJudge(PlainLineJudge):
    """The shell half of :class:`~harness_rules.RuleEngine`: a plain line is judged in one
    pass (:class:`~harness_rules._judge_plain.PlainLineJudge`, whose attributes it shares),
    any other line from its analysis."""

    def _shell(self, command: str, root: str, pool: Pool, tally: Tally, bases: Bases) -> None:
        if self._plain_line(command, root, pool, tally, bases):
            return
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
        return self._unit_memo.remember(
            key, match_unit(pool, unit.text, unit.allow_forms, unit.deny_forms, lambda: unit.suffixes))

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
            for arg in unit.args:
                self._guard_argument(arg.path, arg.cwds, arg.glob, arg.tree, arg.origin, guard, tally, bases)
            if unit.unknown_args is not None and not tally.deny and guard.unknowns is not None:
                tally.unsure.append(f"{shown}: {unit.unknown_args}, and it may name a file a rule such as "
                                    f"`{guard.unknowns.text}` denies")
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
        if item.kind == "path":  # the rules files' own protection alone never asks (Pool.unknowns)
            relevant = self._edit_pool.judges_unknowns
        elif item.kind == "read":
            relevant = self._read_pool.unknowns is not None
        else:
            relevant = bool(pool) or self._edit_pool.judges_unknowns or self._read_pool.judges_unknowns
        if relevant:
            tally.unsure.append(f"{shown}: {item.reason}")

