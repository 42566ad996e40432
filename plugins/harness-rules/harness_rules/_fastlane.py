"""The fast lane: plain command lines analysed without bashlex and without the tree walker.

:func:`fast_analysis` takes the :class:`~harness_rules._fastlex.Plain` commands
:func:`~harness_rules._fastlex.lex` reads and builds the very
:class:`~harness_rules._units.ShellAnalysis` the walker (:mod:`harness_rules._walker`)
builds from bashlex's tree of the same line: the same units, paths and opaque items in the
same order. It follows the walker's control flow (:class:`~harness_rules._plain_walk.PlainWalk`:
lists, pipelines and the standard input each stage reads, ``cd``, redirections) with plain
strings, and judges the common command
- one that wraps nothing - with the walker's own string functions
(:func:`~harness_rules._walk_commands.make_unit`,
:func:`~harness_rules._walk_commands.literal_argument`,
:func:`~harness_rules._units.text_suffixes`, :func:`~harness_rules._trees.mark_trees`).
Every other command (wrappers, shells, evaluating builtins, ``tee``, environment
prefixes that run code, a wildcard command name, an option that runs a command) goes
through the walker's own :meth:`~harness_rules._walk_commands.CommandWalker.command`
(:func:`command_kind` decides).

It returns ``None`` - the caller then uses the full walker - for a line outside the
lexer's subset, a line naming ``GLOBIGNORE`` or ``CDPATH`` (even spelled with quotes) or
holding a NUL, ``exec`` (it changes the shell's own standard input) and anything the
walker would refuse. The test suite checks
it differentially against the bashlex walk (``test_rules_fastlane.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._builtins import EVALUATING_BUILTINS, code_env
from ._fastlex import Plain, lexed
from ._memo import RepeatMemo
from ._option_risks import option_problem
from ._plain_walk import PlainWalk
from ._trees import TREE_READERS, mark_trees
from ._units import (
    GLOB,
    OUTPUT_REDIRECTS,
    CommandUnit,
    Cwds,
    Opaque,
    PathAccess,
    ShellAnalysis,
    dev_sink,
    expands,
    text_suffixes,
)
from ._walk_commands import argument_paths, link_targets, make_unit, plain_word
from ._walk_words import Stdin, Unsupported
from ._walker import Walker, may_redefine_output
from ._words import Word
from ._wrappers import LEAF_COMMANDS, WRAPPERS, subcommand_index

__all__ = ["JUDGED_WRAPPERS", "command_kind", "fast_analysis", "plain_arguments", "reads_trees"]

_SPECIAL = frozenset({*EVALUATING_BUILTINS, *WRAPPERS, "tee"})
JUDGED_WRAPPERS: Final = frozenset({"find"})
"""Wrappers the plain-line judge judges as written when they wrap nothing (``find``
without ``-exec``: its handler only looks for ``-exec``); the other wrappers' handlers would
run twice on a line that wraps a command, so such lines go to the analysis."""
"""Command names the fast lane hands to the walker's :meth:`command`."""


_CACHE: RepeatMemo[tuple[object, ...], tuple[tuple[CommandUnit, ...], tuple[PathAccess, ...], tuple[Opaque, ...], Cwds]] = (
    RepeatMemo(8192))
"""What each plain command added, by its words and context (bounded)."""


class _Decline(Exception):
    """The line needs the full walker."""


def fast_analysis(command: str, cwd: str, home: str) -> ShellAnalysis | None:
    """The analysis of a plain command line, or ``None`` when it is not plain.

    Args:
        command: the command line (at most :data:`~harness_rules._units.MAX_COMMAND_CHARS`
            characters; the caller checks).
        cwd: the absolute directory it starts in.
        home: the home directory.

    Returns:
        The :class:`ShellAnalysis` the walker would build, or ``None``.
    """
    if "GLOBIGNORE" in command or "CDPATH" in command or "\x00" in command:
        return None
    lines = lexed(command)
    if lines is None:
        return None
    lane = _Lane(command, home)
    try:
        PlainWalk(command, lane.walker.literal_ok, lane.simple).lines(lines, cwd)
    except (_Decline, Unsupported, RecursionError):
        return None
    walker = lane.walker
    return ShellAnalysis(command, tuple(walker.units), tuple(walker.paths), tuple(walker.opaque))


class _Lane:
    """One line's walk; ``walker`` holds what is found (and judges special commands)."""

    def __init__(self, source: str, home: str) -> None:
        self.source = source
        self.home = home
        self.walker = walker = Walker(home)
        walker.source = source
        walker.literal_ok = not may_redefine_output(source)
        walker.fd_reads = "<" in source
        self.units = walker.units
        self.paths = walker.paths

    def simple(self, cmd: Plain, cwds: Cwds, stdin: Stdin) -> Cwds:
        """:meth:`SimpleWalker.simple` of a plain command, cached by its words: what it adds
        depends only on the key (pure string work, no file system)."""
        walker = self.walker
        # the words as written decide the assignments and the words after quote removal
        key = (tuple(cmd.raws), tuple(cmd.redirects), cwds, stdin, walker.literal_ok, walker.fd_reads, self.home)
        hit = _CACHE.get(key)
        if hit is not None:
            self.units.extend(hit[0])
            self.paths.extend(hit[1])
            walker.opaque.extend(hit[2])
            return hit[3]
        units, paths, opaque = len(self.units), len(self.paths), len(walker.opaque)
        after = self._simple(cmd, cwds, stdin)
        _CACHE.remember(key, (tuple(self.units[units:]), tuple(self.paths[paths:]), tuple(walker.opaque[opaque:]), after))
        return after

    def _simple(self, cmd: Plain, cwds: Cwds, stdin: Stdin) -> Cwds:
        assignments, words = cmd.assignments, cmd.words
        if words and words[0] == "exec":
            raise _Decline
        label = " ".join(assignments + words) if assignments else " ".join(words)
        if "GLOBIGNORE" in label or "CDPATH" in label:  # spelled with quotes inside (`export "GLOB""IGNORE=x"`)
            raise _Decline
        for rtype, fd, target, _raw in cmd.redirects:
            if rtype == ">&":
                continue  # a descriptor duplication (`2>&1`) touches no file
            assert isinstance(target, str)
            if rtype in OUTPUT_REDIRECTS:
                if not dev_sink(target, self.walker.fd_reads):
                    self.paths.append(PathAccess(target, cwds, "write", f"written by `{label} {rtype} {target}`",
                                                 glob=bool(GLOB.search(target)), required=True))
                continue
            self.paths.append(PathAccess(target, cwds, "read", f"read by `{label} {rtype} {target}`",
                                         glob=bool(GLOB.search(target))))
            if fd is None or fd == 0:
                stdin = Stdin("file", origin=f"`{target}`")
        if not words:
            self.walker.assignment_only([Word(a) for a in assignments])
            return cwds
        first = words[0]
        name = first.rpartition("/")[2]
        if name in ("cd", "pushd", "popd") and not any(code_env(a.partition("=")[0]) for a in assignments):
            self.units.append(make_unit(assignments, words, False))
            return self.walker.change_directory(name, [Word(w) for w in words[1:]], cwds)
        kind = command_kind(assignments, words, cmd.raws, stdin, unwrap=False)
        if kind is None:
            raws = cmd.raws
            n = len(assignments)
            self.walker.command([Word(a, raw=r) for a, r in zip(assignments, raws, strict=False)],
                                [Word(w, raw=r) for w, r in zip(words, raws[n:], strict=True)], cwds, 0, stdin=stdin)
            return cwds
        paths, why = plain_arguments(name, words[1:], cwds)
        self.units.append(make_unit(assignments, words, True, paths, (text_suffixes(name, words),) if kind else (),
                                    why))
        return cwds


def command_kind(assignments: Sequence[str], words: Sequence[str], raws: Sequence[str], stdin: Stdin, *,
                 unwrap: bool = True) -> bool | None:
    """How a plain command (``assignments`` and ``words`` are texts, ``raws`` every word as
    written) is judged: ``None`` when the walker's
    :meth:`~harness_rules._walk_commands.CommandWalker.command` must judge it (a wrapper
    that wraps a command, a shell, an evaluating builtin that evaluates, ``tee``, a fixed
    standard input (a shell may run it), a prefix that runs code, a command name the shell
    expands); else whether it is a command the analysis does not know (its word suffixes
    are checked: it may run one of its arguments). A wrapper or evaluating builtin wrapping
    nothing (``find -name x``, ``printf x``) is judged as written, as the walker does;
    with ``unwrap`` False (the fast lane, whose walker judges those itself) every wrapper and
    evaluating builtin goes to the walker, and so does every wrapper but ``find`` (whose
    handler only looks for ``-exec``) otherwise: finding that the others wrap nothing would
    cost their handler twice when they do."""
    first = words[0]
    name = first.rpartition("/")[2]
    if name == "tee" or stdin.kind == "literal" \
            or (bool(assignments) and any(code_env(a.partition("=")[0]) for a in assignments)) \
            or (("*" in first or "?" in first or "[" in first or "{" in first) and expands(first) is not None):
        return None
    if name not in _SPECIAL:
        if option_problem(name, words[1:]) is not None:
            return None  # the walker records why (`sed 'w f'`, `tar --to-command`...)
        return name not in LEAF_COMMANDS
    if not unwrap or (name in WRAPPERS and name not in JUDGED_WRAPPERS):
        return None
    args = [Word(w, raw=r) for w, r in zip(words[1:], raws[len(assignments) + 1:], strict=True)]
    check = EVALUATING_BUILTINS.get(name)
    if check is not None and check(args) is not None:
        return None
    handler = WRAPPERS.get(name)
    if handler is not None:
        return None if handler(args) is not None else False
    return name not in LEAF_COMMANDS


def reads_trees(name: str, args: Sequence[str]) -> bool:
    """True when the command may read whole directory trees (:func:`mark_trees` decides)."""
    if name == "git":
        sub = subcommand_index("git", args)
        return sub is not None and args[sub] == "grep"
    reader = TREE_READERS.get(name)  # a reader recurses only when always or told by an option
    return reader is not None and (reader.always or any(a[:1] == "-" for a in args))


def plain_arguments(name: str, args: Sequence[str], cwds: Cwds) -> tuple[tuple[PathAccess, ...], str | None]:
    """``(paths, why)``: the arguments ``args`` (texts, no ``~`` to expand) of the plain
    command ``name`` that may name files, read in ``cwds`` (marked ``tree`` for a
    tree-reading command), and why some are only known at run time or ``None``."""
    out: list[PathAccess] = []
    why: str | None = None
    origin = f"an argument of `{name}`"
    operands = False  # after `--`, every word is a file name, even `-x`
    for text in args:
        if not operands:
            if text == "--":
                operands = True
                continue
            if plain_word(text):  # argument_paths's common case, inline
                out.append(PathAccess(text, cwds, "read", origin, glob=GLOB.search(text) is not None))
                continue
            if text[:1] == "-" and (len(text) == 2 or text[:2] == "--") and not text.partition("=")[2]:
                continue  # an option naming no file (`-k`, `--watch`): argument_paths gives nothing
        found, because = argument_paths(text, False, "", operand=operands)
        why = why or because
        out.extend(PathAccess(path, cwds, "read", origin, glob=glob) for path, glob in found)
    if name == "ln":
        out.extend(PathAccess(p, cwds, "read", origin, glob=GLOB.search(p) is not None) for p in link_targets(args))
    paths = tuple(out)
    if reads_trees(name, args):
        paths, why = mark_trees(name, [Word(w) for w in args], paths, cwds, why)
    return paths, why
