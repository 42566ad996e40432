"""What a shell command line is made of, as the rules judge it, and the textual fallback.

:class:`CommandUnit` (one simple command that would run), :class:`PathAccess` (a file the
line reads or writes), :class:`Opaque` (something that cannot be judged) and
:class:`ShellAnalysis` (all of them for one line) are built by the walker in
:mod:`harness_rules._shell`. :func:`textual_opaque` is the conservative reading of a line
the parser cannot parse: split at every operator, every word suffix kept for deny checks,
redirection targets found textually. The word helpers say when the shell would still
change a command name (brace or wildcard expansion) and which names a computed one may
hold.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Final, Literal

import attrs

from ._expand import brace_expand
from ._words import SENTINEL, Suffixes, Word, texts
from ._wrappers import subcommand_index

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_DEPTH",
    "SAFE_ENV_NAMES",
    "WORD_SPACE",
    "CommandUnit",
    "Cwds",
    "Opaque",
    "PathAccess",
    "ShellAnalysis",
    "expands",
    "GLOB",
    "DEV_SINKS",
    "OUTPUT_REDIRECTS",
    "PROXY_NAMES",
    "guessed_names",
    "safe_env",
    "show_command",
    "suffix_forms",
    "textual_opaque",
    "union",
    "word_suffixes",
    "text_suffixes",
]

MAX_COMMAND_CHARS: Final = 32_768
"""Longer command lines are not analysed: they are asked about (bounded cost)."""
MAX_DEPTH: Final = 8

Cwds = tuple[str | None, ...]
"""The possible working directories (``None``: unknown, after ``cd $X`` say)."""

SAFE_ENV_NAMES: Final = frozenset({
    "CI", "NODE_ENV", "DEBUG", "RUST_BACKTRACE", "RUST_LOG", "LANG", "LANGUAGE", "TZ",
    "NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "LINES", "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "VERBOSE",
})
"""Variables an environment prefix may set without changing which command an allow rule
matches (``CI=1 npm test`` is allowed by ``bash(npm test *)``); ``LC_*`` too. Any other
prefix (``PATH=``, ``LD_PRELOAD=``, ``GIT_SSH_COMMAND=``...) must be written in the rule."""

WORD_SPACE: Final = "\x01"
"""Stands for whitespace inside one word in :attr:`CommandUnit.suffixes`."""

PROXY_NAMES: Final = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})
DEV_SINKS: Final = re.compile(r"/dev/(?:null|stdout|stderr|tty|zero|fd/\d+)")
OUTPUT_REDIRECTS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


@attrs.frozen(cache_hash=True)
class CommandUnit:
    """One simple command that would run.

    Attributes:
        text: the command as normalized (quotes removed, words joined by one space),
            environment prefix included.
        allow_forms: an allow rule matching any of these allows the unit.
        deny_forms: a deny or ask rule that may match any of these holds.
        required: the unit must be allowed for the whole command to be allowed (False for
            transparent wrappers, whose inner command is judged instead, and for ``cd``).
        args: argument words that may name files, with the directories they resolve in.
        suffixes: for a command the analysis does not know (it may run one of its
            arguments as a command, as ``uv run rm x`` does), every word suffix starting at
            a literal, non-option argument; deny and ask rules matching one hold. Whitespace
            inside a word is ``"\\x01"`` here, so a quoted argument (``-m 'rm old'``) is not
            taken for several words.
        unknown_args: why some arguments are only known at run time (a variable, a
            substitution, ``xargs`` input), or ``None``: they may name any file.
        name: the command name (basename), ``""`` for a bare assignment.
    """

    text: str
    allow_forms: tuple[str, ...]
    deny_forms: tuple[str, ...]
    required: bool = True
    args: tuple[PathAccess, ...] = ()
    suffixes: tuple[Suffixes, ...] = ()
    unknown_args: str | None = None
    name: str = ""


@attrs.frozen(cache_hash=True)
class PathAccess:
    """A file a command line touches.

    Attributes:
        path: the path as written (quotes removed; ``~`` kept for the caller to expand).
        cwds: where a relative path resolves.
        access: ``write`` (redirection, ``tee``) or ``read`` (``<``, arguments).
        origin: what touches it, for reasons (``redirection `> out.txt```).
        glob: the word holds wildcard characters the shell would expand.
        required: for a write, an edit rule must allow it (``False`` for a file that is
            only created when missing, such as ``flock``'s lock file: edit deny and ask rules
            still hold).
        tree: the command reads everything below the path when it is a directory
            (``grep -r``, ``rg``, ``cp -r``: see :mod:`harness_rules._trees`).
    """

    path: str
    cwds: Cwds
    access: Literal["write", "read"]
    origin: str
    glob: bool = False
    required: bool = True
    tree: bool = False


@attrs.frozen
class Opaque:
    """Something the analysis cannot judge; never allowed automatically.

    Attributes:
        text: what could not be judged.
        reason: why.
        deny_forms: word suffixes for a conservative deny check.
        write_targets: redirection targets found textually (unparsable commands only).
        kind: ``command``, ``path`` (a write to a path computed at run time) or ``read``
            (a read of one).
    """

    text: str
    reason: str
    deny_forms: tuple[Suffixes, ...] = ()
    write_targets: tuple[str, ...] = ()
    kind: Literal["command", "path", "read"] = "command"


@attrs.frozen
class ShellAnalysis:
    """The parts of one command line (see the module docs).

    Attributes:
        command: the command line.
        units: the simple commands, in source order.
        paths: the files written or read through redirections and ``tee``.
        opaque: what could not be judged.
        error: the parser's message when the whole line could not be parsed.
    """

    command: str
    units: tuple[CommandUnit, ...] = ()
    paths: tuple[PathAccess, ...] = ()
    opaque: tuple[Opaque, ...] = ()
    error: str | None = None


# -- textual fallback ------------------------------------------------------------------

_SPLIT: Final = re.compile(r"\|\||&&|\$\(|[;&|\n(){}`]")
_TEXT_REDIRECT: Final = re.compile(r"(?:&>>?|>>?|>\||<>)\s*([^\s;&|<>()]+)")
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def textual_opaque(command: str, reason: str) -> Opaque:
    """An :class:`Opaque` item for a command that could not be parsed.

    The command line is split at every shell operator; every word suffix of every piece
    (leading assignments dropped, quotes removed where possible) becomes a deny form, so a
    denied command anywhere in it is still found. Redirection targets are found textually.
    """
    forms: list[Suffixes] = []
    for piece in _SPLIT.split(command):
        words = _loose_words(piece)
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if words:
            forms.extend(suffix_forms(words))
    targets = tuple(t.strip("'\"") for t in _TEXT_REDIRECT.findall(command))
    targets = tuple(t for t in targets if t and not t.isdigit() and t != "-" and not DEV_SINKS.fullmatch(t))
    return Opaque(show_command(command, 2000), reason, tuple(forms), targets)


def _loose_words(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return [w.strip("'\"") for w in text.split()]


def suffix_forms(words: Sequence[str]) -> list[Suffixes]:
    """Every word suffix (a path command name also matches by its basename, see
    :meth:`~harness_rules.CommandPattern.matches_at`), for deny checks; words with brace
    groups are also expanded as the shell would."""
    expanded: list[str] = []
    for word in words:
        alternatives = brace_expand(word) if "{" in word else None
        expanded.extend(alternatives if alternatives else [word])
    if expanded != list(words):
        return [Suffixes.every(words), Suffixes.every(expanded)]
    return [Suffixes.every(words)]


# -- words -----------------------------------------------------------------------------

_BRACE: Final = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
GLOB: Final = re.compile(r"[*?]|\[.*\]", re.DOTALL)
"""A word the shell would expand as a wildcard (a lone ``[``, as in ``[ -d x ]``, is literal)."""
_NAME_TOKEN: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+/-]*")
_WHITESPACE: Final = re.compile(r"\s")


def expands(text: str) -> str | None:
    """Why the shell may turn a command name into something else, or ``None``."""
    if _BRACE.search(text):
        return "the command name undergoes brace expansion"
    if GLOB.search(text):
        return "the command name is a wildcard the shell expands"
    return None


def guessed_names(word: Word, rest: Sequence[str]) -> list[Suffixes]:
    """Deny forms for a command name computed at run time: every name-like token written
    in it (``$(echo rm)`` may well be ``rm``), followed by the arguments."""
    tokens = _NAME_TOKEN.findall(word.raw or word.text)
    if word.output is not None:
        tokens.extend(word.output.split()[:1])
    return [Suffixes((token, *rest), (0,)) for token in list(dict.fromkeys(tokens))[:64]]


def union(a: Cwds, b: Cwds) -> Cwds:
    return tuple(dict.fromkeys((*a, *b)))


def safe_env(name: str) -> bool:
    return name in SAFE_ENV_NAMES or name.startswith("LC_")


def word_suffixes(name: str, words: Sequence[Word]) -> Suffixes:
    """The word suffixes of an unknown command that may be a command it runs: each starts
    at a literal argument that is not an option (nor the subcommand of a tool such as
    ``git``); whitespace inside a word becomes :data:`WORD_SPACE`."""
    return text_suffixes(name, texts(words), [w.dynamic for w in words])


def text_suffixes(name: str, words: Sequence[str], dynamic: Sequence[bool] | None = None) -> Suffixes:
    """:func:`word_suffixes` of word texts; ``dynamic[i]``: word ``i`` is computed at run
    time (``None``: every word is literal)."""
    word_texts = [_WHITESPACE.sub(WORD_SPACE, t) if " " in t or "\n" in t or "\t" in t else t for t in words]
    sub = subcommand_index(name, word_texts[1:])
    skip = None if sub is None else sub + 1
    starts: list[int] = []
    for index in range(1, len(words)):
        text = words[index]
        if index == skip or (dynamic is not None and dynamic[index]) or not text or text.startswith("-") \
                or SENTINEL in text:
            continue
        starts.append(index)
    return Suffixes(tuple(word_texts), tuple(starts))


def show_command(text: str, limit: int = 200) -> str:
    """``text`` for reasons: unknown arguments as ``…``, at most ``limit`` characters."""
    text = text.replace(SENTINEL, "…").replace(WORD_SPACE, " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"

