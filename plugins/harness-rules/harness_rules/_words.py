"""Shell words as the command analysis sees them, and option scanning for wrappers.

A :class:`Word` is one word of a simple command after quote removal, with what the shell
may still do to it at run time (expansions, ``~``). :func:`skip_options` and
:func:`scan_options` read a wrapper's options with the grammar an :class:`Options` spells
out, so the wrapped command can be found; an option outside the grammar makes them return
``None`` (the wrapper is then not judged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs

__all__ = ["SENTINEL", "Options", "Scanned", "Suffixes", "Word", "scan_options", "skip_options", "texts"]

SENTINEL: Final = "\x00"
"""Stands for arguments only known at run time in a unit's forms."""


@attrs.frozen
class Word:
    """One shell word.

    Attributes:
        text: the word after quote removal.
        dynamic: it holds a parameter expansion or a command/process substitution (its
            value is only known at run time).
        tilde: it starts with an unquoted ``~`` the shell expands.
        raw: the word as written in the source (empty when made up by a wrapper).
        output: for a word that is one command or process substitution of a command whose
            output is literal (``echo``/``printf`` of fixed text, ``cat`` of a quoted
            here-document): that output; else ``None``.
    """

    text: str
    dynamic: bool = False
    tilde: bool = False
    raw: str = ""
    output: str | None = None

    def replaced(self, old: str, new: str) -> Word:
        """The word with ``old`` replaced by ``new`` in its text."""
        return attrs.evolve(self, text=self.text.replace(old, new))


@attrs.frozen(cache_hash=True)
class Suffixes:
    """Word suffixes of one command, for deny and ask checks, in linear space.

    The suffix starting at word ``i`` (for each ``i`` in ``indexes``) is
    ``text[offsets[k]:]``; rules are matched there without copying (see
    :meth:`~harness_rules.CommandPattern.matches_at`), so a command of ``n`` words costs
    ``O(n)`` memory rather than the ``O(n**2)`` of every suffix spelled out.

    Attributes:
        words: the words (whitespace inside a word already replaced when that matters).
        indexes: the word indexes suffixes start at.
        text: the words joined by single spaces.
        offsets: the character offset of each suffix in ``text``.
        heads: suffix offsets by the basename of their first word (``/bin/rm`` → ``rm``).
    """

    words: tuple[str, ...]
    indexes: tuple[int, ...]
    text: str = attrs.field(init=False, eq=False, repr=False)
    offsets: tuple[int, ...] = attrs.field(init=False, eq=False, repr=False)
    heads: dict[str, tuple[int, ...]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        words = self.words
        offsets: list[int] = []
        heads: dict[str, list[int]] = {}
        if self.indexes:
            starts: list[int] = []
            at = 0
            for word in words:
                starts.append(at)
                at += len(word) + 1
            for i in self.indexes:
                offset = starts[i]
                offsets.append(offset)
                head = words[i].rpartition("/")[2]
                found = heads.get(head)
                if found is None:
                    heads[head] = [offset]
                else:
                    found.append(offset)
        object.__setattr__(self, "text", " ".join(words))
        object.__setattr__(self, "offsets", tuple(offsets))
        object.__setattr__(self, "heads", {k: tuple(v) for k, v in heads.items()})

    @classmethod
    def every(cls, words: Sequence[str]) -> Suffixes:
        """Every word suffix of ``words``."""
        return cls(tuple(words), tuple(range(len(words))))

    def forms(self) -> list[str]:
        """Every suffix spelled out (for tests and small commands)."""
        return [self.text[o:] for o in self.offsets]

    def mapped(self, change: Callable[[str], str]) -> Suffixes:
        """The same suffixes with every word passed through ``change``; suffixes whose first
        word becomes a run-time argument (:data:`SENTINEL`) are dropped."""
        words = tuple(change(w) for w in self.words)
        return Suffixes(words, tuple(i for i in self.indexes if not words[i].startswith(SENTINEL)))

    def __bool__(self) -> bool:
        return bool(self.indexes)


def texts(words: Iterable[Word]) -> list[str]:
    """The texts of ``words``."""
    return [w.text for w in words]


@attrs.frozen
class Options:
    """A wrapper's option grammar.

    Attributes:
        flags: short options without a value (``-n``).
        valued: short options taking a value, attached (``-c3``) or next (``-c 3``).
        optional: short options with an optional attached value (``script -t[file]``).
        long_flags: long options without a value.
        long_valued: long options taking a value (``--opt=v`` or ``--opt v``).
        long_optional: long options with an optional ``=value``.
        numeric: ``-10`` style options (``nice``).
    """

    flags: str = ""
    valued: str = ""
    optional: str = ""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()
    numeric: bool = False


_Seen = list[tuple[str, Word | None]]


def _option(args: Sequence[Word], i: int, spec: Options, seen: _Seen) -> int | None:
    """Read the option at ``args[i]``; the index after it, or ``None`` when unknown."""
    text = args[i].text
    if text.startswith("--"):
        name, eq, value = text.partition("=")
        if name in spec.long_valued:
            if eq:
                seen.append((name, attrs.evolve(args[i], text=value)))
                return i + 1
            if i + 1 < len(args):
                seen.append((name, args[i + 1]))
                return i + 2
            return None
        if name in spec.long_optional:
            seen.append((name, attrs.evolve(args[i], text=value) if eq else None))
            return i + 1
        if name in spec.long_flags and not eq:
            seen.append((name, None))
            return i + 1
        return None
    if spec.numeric and text[1:].isdigit():
        return i + 1
    j = 1
    while j < len(text):
        ch = text[j]
        if ch in spec.valued:
            rest = text[j + 1 :]
            if rest:
                seen.append(("-" + ch, attrs.evolve(args[i], text=rest)))
                return i + 1
            if i + 1 < len(args):
                seen.append(("-" + ch, args[i + 1]))
                return i + 2
            return None
        if ch in spec.optional:
            rest = text[j + 1 :]
            seen.append(("-" + ch, attrs.evolve(args[i], text=rest) if rest else None))
            return i + 1
        if ch in spec.flags:
            seen.append(("-" + ch, None))
            j += 1
            continue
        return None
    return i + 1


def skip_options(args: Sequence[Word], spec: Options) -> tuple[int, _Seen] | None:
    """Options up to the first operand (``getopt`` with ``+``: options end at an operand).

    Returns:
        The index of the first operand (``len(args)`` when there is none) and the options
        seen as ``(name, value word or None)``; ``None`` on an option outside ``spec`` or one whose value
        is computed at run time.
    """
    seen: _Seen = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.dynamic:
            return None
        if word.text == "--":
            return i + 1, seen
        if not word.text.startswith("-") or len(word.text) == 1:
            return i, seen
        after = _option(args, i, spec, seen)
        if after is None:
            return None
        i = after
    return i, seen


@attrs.frozen
class Scanned:
    """What :func:`scan_options` found: the operands in order and the options seen."""

    operands: tuple[Word, ...]
    seen: tuple[tuple[str, Word | None], ...]

    def has(self, *names: str) -> bool:
        """True when any of the options ``names`` was given."""
        return any(name in names for name, _ in self.seen)

    def value(self, *names: str) -> Word | None:
        """The last value given to any of ``names`` (``None`` when absent or valueless)."""
        found: Word | None = None
        for name, value in self.seen:
            if name in names:
                found = value
        return found


def scan_options(args: Sequence[Word], spec: Options, *, stop_at_operand: bool = False) -> Scanned | None:
    """Options anywhere among the operands (GNU ``getopt`` permutation) up to ``--``.

    Args:
        args: the words after the command name.
        spec: the grammar.
        stop_at_operand: stop reading options after the first operand (the rest are
            operands even when they start with ``-``).

    Returns:
        The :class:`Scanned` result, or ``None`` on an unknown option or an option word
        computed at run time.
    """
    seen: _Seen = []
    operands: list[Word] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.text == "--" and not word.dynamic:
            operands.extend(args[i + 1 :])
            break
        if word.dynamic:
            return None  # may expand to options as well as operands
        if not word.text.startswith("-") or len(word.text) == 1:
            operands.append(word)
            i += 1
            if stop_at_operand:
                operands.extend(args[i:])
                break
            continue
        after = _option(args, i, spec, seen)
        if after is None:
            return None
        i = after
    return Scanned(tuple(operands), tuple(seen))
