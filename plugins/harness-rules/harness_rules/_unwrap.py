"""What a wrapper command runs, as an :class:`Unwrap`, and the constructors handlers use.

A handler (see :mod:`harness_rules._wrappers`) reads a wrapper's arguments (the words after
its name) and returns an :class:`Unwrap`, or ``None`` when that invocation runs nothing
else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Literal

import attrs

from ._words import Word

__all__ = [
    "SHELLS",
    "STDIN_FILES",
    "Handler",
    "Unwrap",
    "argv_unwrap",
    "opaque_unwrap",
    "script_unwrap",
    "stdin_unwrap",
    "unknown_options",
]

SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh"})
"""Shells whose ``-c``, ``-s`` and standard input the analysis understands."""

STDIN_FILES: Final = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""Files that are the command's own standard input."""


@attrs.frozen
class Unwrap:
    """What a wrapper runs (see the module docs).

    Attributes:
        kind: ``argv``, ``script``, ``stdin`` or ``opaque``.
        guarded: the wrapper must be allowed as well as what it runs.
        inners: for ``argv``, the commands run (each a sequence of words).
        assignments: environment assignments the wrapper adds (``env FOO=1 CMD``).
        script: for ``script``, the shell text.
        placeholder: a regular expression for the replacement strings of ``parallel`` in
            ``script``; what matches stands for arguments only known at run time.
        stdin_fallback: for ``stdin``, what to do when the input is not literal text:
            ``plain`` (judge the wrapper as written, as for ``bash < script.sh``) or
            ``opaque`` (never allow automatically); input from a pipe is always opaque.
        writes: files the wrapper writes, with whether an edit rule must allow the write
            (``False``: only edit deny and ask rules apply, for a lock file).
        reason: for ``opaque``, why.
        caveat: why what it runs is never allowed automatically although it is judged
            (deny rules still hold): ``bash -k -c 'CMD'`` runs CMD under an option that
            changes how it is read.
    """

    kind: Literal["argv", "script", "stdin", "opaque"]
    guarded: bool = False
    inners: tuple[tuple[Word, ...], ...] = ()
    assignments: tuple[Word, ...] = ()
    script: str = ""
    placeholder: str | None = None
    stdin_fallback: Literal["plain", "opaque"] = "opaque"
    writes: tuple[tuple[Word, bool], ...] = ()
    reason: str = ""
    caveat: str = ""


Handler = Callable[[list[Word]], Unwrap | None]


def opaque_unwrap(reason: str) -> Unwrap:
    return Unwrap("opaque", reason=reason)


def argv_unwrap(*inners: Sequence[Word], guarded: bool = False, assignments: Sequence[Word] = (),
          writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    return Unwrap("argv", guarded, tuple(tuple(i) for i in inners if i), tuple(assignments), writes=tuple(writes))


def script_unwrap(word: Word, what: str, *, guarded: bool = False, writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    """Shell text given as one word; its literal output when it is a substitution of
    literal text (``bash -c "$(echo git status)"``)."""
    if word.dynamic:
        if word.output is None:
            return opaque_unwrap(f"{what} runs a command string computed at run time")
        return Unwrap("script", guarded, script=word.output, writes=tuple(writes))
    return Unwrap("script", guarded, script=word.text, writes=tuple(writes))


def stdin_unwrap(what: str, *, guarded: bool = False, fallback: Literal["plain", "opaque"] = "plain",
           writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    return Unwrap("stdin", guarded, stdin_fallback=fallback, writes=tuple(writes),
                  reason=f"{what} reads the commands it runs from standard input")


def unknown_options(what: str) -> Unwrap:
    return opaque_unwrap(f"`{what}` with options the rules do not know")

