"""Judging a plain command line in one pass, without building its analysis.

The common shell call - commands of :mod:`harness_rules._fastlex`'s subset that wrap
nothing - is judged straight from the lexer's output: each command's forms against the
command rules, each argument that may name a file through the shell guard, each
redirection target against the edit and read rules, in the order and with the matches
:meth:`~harness_rules._judge_shell.ShellJudge._shell` gives when it judges the
:class:`~harness_rules._units.ShellAnalysis` of the same line. What it leaves out is the
intermediate objects (units, path accesses, the analysis) and, with the guard off, the
argument scan.

:func:`plain_jobs` plans a line without touching the file system and declines (``None``)
everything else before anything is judged: a line outside the lexer's subset or over
:data:`~harness_rules._units.MAX_COMMAND_CHARS`, a line naming ``GLOBIGNORE`` or
``CDPATH``, a NUL, ``exec``, ``tee``, a bare assignment, any wrapper but ``find``, and
every command :func:`~harness_rules._fastlane.command_kind` hands to the walker (a shell,
an evaluating builtin that evaluates, a fixed standard input, a prefix that runs code, an
option that runs a command: :mod:`harness_rules._option_risks`). The caller then judges
the analysis. The test suite checks both paths give equal verdicts
(``test_rules_plain_judge.py``, ``test_rules_plain_judge_adversarial.py``).
"""

from __future__ import annotations

import os
from typing import Final

from ._builtins import code_env
from ._fastlane import JUDGED_WRAPPERS, command_kind, plain_arguments, reads_trees
from ._fastlex import Line, Plain, lexed
from ._judge_paths import PathJudge, denied_nowhere
from ._memo import RepeatMemo
from ._paths import Bases, normalize
from ._plain_walk import PlainWalk
from ._pool import Pool, Tally, UnitMatches, match_unit
from ._resolve import Memo, resolve
from ._units import GLOB, MAX_COMMAND_CHARS, OUTPUT_REDIRECTS, Cwds, dev_sink, text_suffixes
from ._walk_commands import argument_paths, unit_forms
from ._walk_words import Stdin
from ._walker import Walker, may_redefine_output
from ._words import Suffixes, Word
from ._wrappers import WRAPPERS, subcommand_index

__all__ = ["NO_FILE_COMMANDS", "Job", "PlainLineJudge", "absent", "named_as_written", "plain_jobs"]

NO_FILE_COMMANDS: Final = frozenset({
    "echo", "printf", "true", "false", ":", "test", "[", "basename", "dirname", "which", "type", "export",
    "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "hash", "sleep", "seq", "kill",
    "expr", "pwd", "cd", "pushd", "popd", "exit", "return", "shift", "set", "shopt", "wait", "jobs", "trap",
    "umask", "ulimit", "times", "read", "getopts", "let", "break", "continue", "printenv", "id",
    "whoami", "uname", "yes", "nproc", "tput", "clear", "command", "builtin",
})
"""Commands that never open their arguments as files: the shell guard does not check
their arguments against read and edit deny rules (``echo .env >> .gitignore``). (``date`` is
not one: ``date -f FILE`` prints the lines of ``FILE`` it cannot read as dates.)"""

Job = tuple[Plain, Cwds, "bool | None"]
"""``(command, the directories it may run in, kind)``: kind ``None`` for a
``cd``/``pushd``/``popd``, else whether the analysis does not know the command (its word
suffixes are checked, see :func:`~harness_rules._fastlane.command_kind`)."""

_FILE: Final = Stdin("file")
_ARGUMENTS: RepeatMemo[str, tuple[tuple[tuple[str, bool], ...], str | None]] = RepeatMemo(8192)
""":func:`~harness_rules._walk_commands.argument_paths` of plain arguments, by text (an
operand after ``--`` prefixed with a NUL; bounded; pure string work)."""


class _Decline(Exception):
    """The line needs its analysis."""


_PLANS: RepeatMemo[tuple[str, str, str], tuple[Job, ...] | None] = RepeatMemo(4096)
""":func:`plain_jobs` by its arguments (pure string work)."""


def plain_jobs(command: str, cwd: str, home: str) -> tuple[Job, ...] | None:
    """The commands of a plain line with their directories, or ``None`` (see the module docs).

    Args:
        command: the command line.
        cwd: the absolute directory it starts in.
        home: the home directory (``cd`` without an operand).
    """
    key = (command, cwd, home)
    if key in _PLANS:
        return _PLANS[key]
    return _PLANS.remember(key, _plan(command, cwd, home))


def _plan(command: str, cwd: str, home: str) -> tuple[Job, ...] | None:
    if len(command) > MAX_COMMAND_CHARS or "GLOBIGNORE" in command or "CDPATH" in command or "\x00" in command:
        return None
    lines = lexed(command)
    if lines is None or _wraps(lines):
        return None
    jobs: list[Job] = []

    def visit(cmd: Plain, cwds: Cwds, stdin: Stdin) -> Cwds:
        assignments, words = cmd.assignments, cmd.words
        if not words or words[0] == "exec":
            raise _Decline
        label = " ".join(assignments + words)
        if "GLOBIGNORE" in label or "CDPATH" in label:  # spelled with quotes inside
            raise _Decline
        for rtype, fd, _target, _raw in cmd.redirects:
            if rtype != ">&" and rtype not in OUTPUT_REDIRECTS and (fd is None or fd == 0):
                stdin = _FILE
        first = words[0]
        name = first.rpartition("/")[2]
        if name in ("cd", "pushd", "popd") and not any(code_env(a.partition("=")[0]) for a in assignments):
            jobs.append((cmd, cwds, None))
            return _change_directory(name, tuple(words[1:]), cwds, home)
        kind = command_kind(assignments, words, cmd.raws, stdin)
        if kind is None:
            raise _Decline
        jobs.append((cmd, cwds, kind))
        return cwds

    try:
        PlainWalk(command, not may_redefine_output(command), visit, describe=False).lines(lines, cwd)
    except (_Decline, RecursionError):
        return None
    return tuple(jobs)


def _wraps(lines: list[Line]) -> bool:
    """True when a command of ``lines`` certainly needs the analysis (a wrapper other than
    ``find``, ``tee``, ``exec``): the line is declined before it is planned."""
    for line in lines:
        for item in line:
            if isinstance(item, str):
                continue
            for cmd in item:
                if cmd.words:
                    name = cmd.words[0].rpartition("/")[2]
                    if name in _WRAPPING:
                        return True
    return False


_WRAPPING: Final = frozenset({*WRAPPERS, "tee", "exec"}) - JUDGED_WRAPPERS
_DIRECTORIES: RepeatMemo[tuple[str, tuple[str, ...], Cwds, str], Cwds] = RepeatMemo(4096)
"""The directories after a plain ``cd``/``pushd``/``popd`` (bounded; pure string work)."""


def _change_directory(name: str, args: tuple[str, ...], cwds: Cwds, home: str) -> Cwds:
    key = (name, args, cwds, home)
    found = _DIRECTORIES.get(key)
    if found is None:
        found = _DIRECTORIES.remember(key, Walker(home).change_directory(name, [Word(w) for w in args], cwds))
    return found


class PlainLineJudge(PathJudge):
    """The plain-line half of the shell judge (see the module docs).

    Attributes:
        guard_arguments: the shell guard is on (see :class:`~harness_rules.RuleEngine`).
    """

    guard_arguments: bool
    _edit_pool: Pool
    _read_pool: Pool
    _guard_pool: Pool
    _unit_memo: RepeatMemo[tuple[object, ...], UnitMatches]

    def _plain_line(self, command: str, root: str, pool: Pool, tally: Tally, bases: Bases) -> bool:
        """Judge ``command`` into ``tally`` if it is plain; False (nothing judged) if not."""
        jobs = plain_jobs(command, root, self.home)
        if jobs is None:
            return False
        guard = self._guard_pool if self.guard_arguments and self._guard_pool else None
        fd_reads = "<" in command
        later: list[tuple[bool, str, Cwds, str]] = []  # redirections, judged after every command
        for cmd, cwds, kind in jobs:
            self._plain_command(cmd, cwds, kind, pool, tally, bases, guard, fd_reads, later)
        for write, target, cwds, origin in later:
            glob = GLOB.search(target) is not None
            if write:
                self._path(target, cwds, self._edit_pool, tally, bases, required=True, origin=origin, glob=glob)
            elif self._read_pool:
                self._path(target, cwds, self._read_pool, tally, bases, required=False, origin=origin, glob=glob)
        return True

    def _plain_command(self, cmd: Plain, cwds: Cwds, kind: bool | None, pool: Pool, tally: Tally, bases: Bases,
                       guard: Pool | None, fd_reads: bool, later: list[tuple[bool, str, Cwds, str]]) -> None:
        assignments, words = cmd.assignments, cmd.words
        label = (" ".join(assignments + words) if assignments else " ".join(words)) if cmd.redirects else ""
        for rtype, _fd, target, _raw in cmd.redirects:
            if rtype == ">&":
                continue  # a descriptor duplication (`2>&1`) touches no file
            assert isinstance(target, str)
            if rtype in OUTPUT_REDIRECTS:
                if not dev_sink(target, fd_reads):
                    later.append((True, target, cwds, f"written by `{label} {rtype} {target}`"))
                continue
            later.append((False, target, cwds, f"read by `{label} {rtype} {target}`"))
        key = (id(pool), tuple(assignments), tuple(words))  # they decide the forms and suffixes
        matches = self._unit_memo.get(key)
        if matches is None:
            text, allow, deny, name = unit_forms(assignments, words)
            matches = self._unit_memo.remember(
                key, match_unit(pool, text, allow, deny, lambda: _suffixes(name, words, pool) if kind else ()))
        tally.parts += 1
        if matches.deny is not None:
            tally.deny.append(matches.deny)
        if matches.ask is not None:
            tally.ask.append(matches.ask)
        tally.unsure.extend(matches.unsure)
        name = words[0].rpartition("/")[2]
        if guard is not None and name not in NO_FILE_COMMANDS:
            self._plain_guard(name, words[1:], cwds, guard, tally, bases, matches.shown)
        if kind is None:
            return  # `cd` need not be allowed
        if matches.allow is not None:
            tally.allow.append(matches.allow)
            return
        tally.unallowed.append(matches.shown)

    def _plain_guard(self, name: str, args: list[str], cwds: Cwds, guard: Pool, tally: Tally, bases: Bases,
                     shown: str) -> None:
        """The shell guard over the arguments of a plain command."""
        why: str | None = None
        if name == "ln" or reads_trees(name, args):  # a link's target, a tree: the analysis's path objects
            paths, why = plain_arguments(name, args, cwds)
            for arg in paths:
                self._guard_argument(arg.path, arg.cwds, arg.glob, arg.tree, arg.origin, guard, tally, bases)
        else:
            origin = f"an argument of `{name}`"
            cwd = cwds[0] if len(cwds) == 1 else None
            operands = False  # after `--`, every word is a file name, even `-x`
            for text in args:
                if text == "--" and not operands:
                    operands = True
                    continue
                key = "\x00" + text if operands else text  # an operand is read apart (no NUL in a plain line)
                found = _ARGUMENTS.get(key)
                if found is None:
                    found = _ARGUMENTS.remember(key, argument_paths(text, False, "", operand=operands))
                for path, glob in found[0]:
                    if cwd is not None and not glob and (absent(path, cwd, guard, bases, tally.lstats)
                                                         or denied_nowhere(path, cwd, guard, bases, tally.lstats)):
                        tally.parts += 1  # _guard_argument's shortcuts, without a call per argument
                        continue
                    self._path(path, cwds, guard, tally, bases, required=False, origin=origin, glob=glob,
                               deny_only=True)
                why = why or found[1]
        if why is not None and not tally.deny and guard.unknowns is not None:
            tally.unsure.append(f"{shown}: {why}, and it may name a file a rule such as `{guard.unknowns.text}` "
                                "denies")

    def _guard_argument(self, path: str, cwds: Cwds, glob: bool, tree: bool, origin: str, guard: Pool,
                        tally: Tally, bases: Bases) -> None:
        """The shell guard on one argument that may name a file: deny rules of ``guard``
        against every spelling (and, for a tree-reading command, what is below it)."""
        if not glob and len(cwds) == 1 and cwds[0] is not None and (
                absent(path, cwds[0], guard, bases, tally.lstats)
                or (not tree and denied_nowhere(path, cwds[0], guard, bases, tally.lstats))):
            tally.parts += 1
            return
        self._path(path, cwds, guard, tally, bases, required=False, origin=origin, glob=glob, deny_only=True,
                   probe=tree)


def _suffixes(name: str, words: list[str], pool: Pool) -> tuple[Suffixes, ...]:
    """The word suffixes of an unknown command (:func:`~harness_rules._units.text_suffixes`),
    or none when no deny or ask rule of ``pool`` could match one (the common case: its
    arguments name no command a rule names)."""
    joined = " ".join(words)
    if joined.count(" ") == len(words) - 1 and "\n" not in joined and "\t" not in joined:  # no blank in a word
        sub = subcommand_index(name, words[1:])
        skip = None if sub is None else sub + 1
        heads = [words[i].rpartition("/")[2] for i in range(1, len(words))
                 if i != skip and words[i] and words[i][0] != "-"]
        if not pool.deny_index.may_match_suffix_of(heads) and not pool.ask_index.may_match_suffix_of(heads):
            return ()
    found = text_suffixes(name, words)
    return (found,) if found.indexes else ()


def absent(raw: str, cwd: str | None, pool: Pool, bases: Bases, memo: Memo) -> bool:
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
    return not named_as_written(cwd, raw, pool, bases, memo)


def named_as_written(cwd: str, raw: str, pool: Pool, bases: Bases, memo: Memo) -> bool:
    """True when a deny rule of ``pool`` matches the relative path ``raw`` as written below
    ``cwd``, or below ``cwd`` with its symlinks resolved (``cd gitlink && touch new``
    creates ``.git/new``): what a path whose first component does not exist yet may be."""
    deny = pool.deny_paths
    if deny.may_match_path(normalize(cwd + "/" + raw), False, bases):
        return True
    real = bases.workspace[-1] if cwd == bases.workspace[0] else resolve(cwd, cwd, bases.anchors, memo).path
    return real != cwd and deny.may_match_path(normalize(real + "/" + raw), False, bases)
