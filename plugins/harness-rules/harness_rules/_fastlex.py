"""A linear-time tokenizer and parser for plain command lines, without bashlex.

:func:`lex` reads a command line made only of the shapes agents use most - words, quotes
without expansions, ``&&``/``||``/``;``/``&``/``|``, newlines, comments and redirections
to plain words - and returns its lines as :class:`Line` s of :class:`Plain` commands
(word texts after quote removal, as bashlex gives them), or ``None`` for anything else.
The fast lane (:mod:`harness_rules._fastlane`) judges what it returns; ``None`` sends the
line to the full walker and bashlex. It fails closed: it returns ``None`` unless it is
sure of the exact reading, and the test suite checks it differentially against bashlex.

Accepted (the grammar of :mod:`harness_rules._fastparse`, which builds bashlex-shaped
trees for the same subset):

* unquoted words of ``A-Za-z0-9_./:=,+@%^*?[]-`` characters (``#`` too, inside a word);
* quoted text (single or double quotes) without ``$``, backquote, backslash, ``!`` or a
  quote of the other kind (bashlex reads expansions inside single quotes and drops a
  quote of the other kind, so those go to bashlex);
* a comment ``#...`` at a word start (after a blank or an operator);
* redirections ``>``, ``>>``, ``&>``, ``&>>``, ``<`` (an optional descriptor digit before
  them) to a word, and duplications ``N>&M``;
* the operators ``&&``, ``||``, ``;``, ``&``, ``|`` and newlines between commands.

Declined (``None``): every other character (``$``, backquote, backslash, ``{``, ``(``,
``~``, ``!``, ``<(``, here-documents, ``>|``, ``<>``, ``&>`` to a descriptor, NUL,
non-ASCII...), reserved words where a command starts (``if``, ``for``, ``[[``, ``!``,
``{``...), an empty command name, a descriptor number of two digits, an assignment after
a redirection, a redirection before the command, an operator where a command should
be, a line ending in ``|``, ``&&`` or ``||``, a comment glued to a word, and a line of
nothing but comments.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["ASSIGNMENT", "RESERVED", "TOKEN", "Line", "Plain", "Redirect", "lex", "lexed", "unquote"]

TOKEN: Final = re.compile(
    r"""(?P<ws>[ \t]+)
    |(?P<dup>[0-9]?>&[0-9](?![A-Za-z0-9_./:=,+@%^*?\[\]\#'"-]))
    |(?P<redir>(?:[0-9]?>>?|&>>?|[0-9]?<)(?![<>&|(]))
    |(?P<word>(?:[A-Za-z0-9_./:=,+@%^*?\[\]-]|'[^'"$`\\!]*'|"[^"$`\\!']*")(?:[A-Za-z0-9_./:=,+@%^*?\[\]#-]|'[^'"$`\\!]*'|"[^"$`\\!']*")*)
    |(?P<op>&&|\|\||[;&|\n])
    |(?P<comment>\#[^\n]*)
    """,
    re.VERBOSE,
)
"""One token of the accepted subset (see the module docs)."""
ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
RESERVED: Final = frozenset({
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "select",
    "function", "time", "coproc", "{", "}", "[[", "]]", "!",
})
"""Words bash reads as reserved where a command starts."""
_QUOTES: Final = re.compile(r"'([^']*)'|\"([^\"]*)\"")

Redirect = tuple[str, "int | None", "str | int", str]
"""``(type, descriptor or None, target text or duplicated descriptor, target as written)``:
``(">", 2, "err.txt", "err.txt")``, ``(">&", 2, 1, "")``."""


def unquote(raw: str) -> str:
    """A word of the subset with its quotes removed."""
    if "'" not in raw and '"' not in raw:
        return raw
    return _QUOTES.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), raw)


class Plain:
    """One simple command of the subset.

    Attributes:
        assignments: the leading ``NAME=value`` words (texts).
        words: the command name and its arguments (texts; ``NAME=value`` after the name
            is an argument).
        raws: the words (assignments first) as written, quotes included.
        redirects: its :data:`Redirect` s in order.
        start: the offset of its first character in the line.
        end: the offset after its last word or redirection.
    """

    __slots__ = ("assignments", "end", "raws", "redirects", "start", "words")

    def __init__(self, start: int) -> None:
        self.assignments: list[str] = []
        self.words: list[str] = []
        self.raws: list[str] = []
        self.redirects: list[Redirect] = []
        self.start = start
        self.end = start


Pipeline = list[Plain]
Line = list["Pipeline | str"]
"""One line: pipelines (lists of commands joined by ``|``) and the operators between them
(``&&``, ``||``, ``;``, ``&``)."""


_SCAN: Final = re.compile(
    r"""[ \t]+
    |[0-9]?>&[0-9](?![A-Za-z0-9_./:=,+@%^*?\[\]\#'"-])
    |(?:[0-9]?>>?|&>>?|[0-9]?<)(?![<>&|(])
    |(?:[A-Za-z0-9_./:=,+@%^*?\[\]-]|'[^'"$`\\!]*'|"[^"$`\\!']*")(?:[A-Za-z0-9_./:=,+@%^*?\[\]\#-]+|'[^'"$`\\!]*'|"[^"$`\\!']*")*
    |&&|\|\||[;&|\n]
    |\#[^\n]*
    """,
    re.VERBOSE,
)
"""The tokens of :data:`TOKEN` without names (``findall`` gives strings, no match objects)."""
_OPERATORS: Final = frozenset({"&&", "||", ";", "&", "|", "\n"})
_KINDS: Final = {" ": "ws", "\t": "ws", "#": "comment", ">": "redir", "<": "redir", "&": "&", "|": "op", ";": "op",
                 "\n": "op"}
"""A token's kind by its first character (``&`` starts operators and redirections; a
digit, words and redirections; anything else, a word)."""


def lex(text: str) -> list[Line] | None:
    """The lines of ``text``, or ``None`` when it is outside the subset (see the module docs)."""
    tokens = _SCAN.findall(text)
    if "".join(tokens) != text:
        return None  # a character no token accepts
    lines: list[Line] = []
    items: Line = []
    pipeline: Pipeline = []
    cmd: Plain | None = None
    pending: tuple[str, int | None] | None = None  # a redirection waiting for its target
    pos = 0
    for token in tokens:
        start = pos
        pos += len(token)
        first = token[0]
        kind = _KINDS.get(first, "word")
        if kind == "word":
            if first.isdigit() and token[1:2] in ("<", ">"):  # `2>`, `0<`, `2>&1`; never a quoted `2'>'x`
                kind = "dup" if token[-1].isdigit() else "redir"
        elif kind == "ws":
            continue
        elif kind == "&":
            kind = "op" if token in _OPERATORS else ("dup" if token[-1].isdigit() else "redir")
        elif kind == "redir" and token[-1].isdigit():
            kind = "dup"
        if kind == "word":
            if token.isdigit() and text[pos : pos + 1] in ("<", ">"):
                return None  # `12>f`: a file descriptor bashlex reads its own way
            word = unquote(token) if ("'" in token or '"' in token) else token
            if pending is not None:
                assert cmd is not None
                cmd.redirects.append((pending[0], pending[1], word, token))
                cmd.end = pos
                pending = None
                continue
            if cmd is None:
                if token in RESERVED or token.startswith("[["):
                    return None
                cmd = Plain(start)
            if not cmd.words and "=" in token and ASSIGNMENT.match(token):
                if cmd.redirects:
                    return None  # bashlex reads an assignment after a redirection as a word
                cmd.assignments.append(word)
            else:
                if not cmd.words and (word in RESERVED or not word):
                    return None
                cmd.words.append(word)
            cmd.raws.append(token)
            cmd.end = pos
            continue
        if pending is not None:
            return None  # a redirection without its target
        if kind == "comment":
            if cmd is not None and text[start - 1] not in " \t":
                return None
            continue
        if kind != "op":
            if cmd is None:
                return None  # bashlex builds other shapes for a leading redirection
            fd = int(first) if first.isdigit() else None
            if kind == "dup":
                cmd.redirects.append((">&", fd, int(token[-1]), ""))
                cmd.end = pos
                continue
            pending = (token[1:] if fd is not None else token, fd)
            continue
        # an operator
        if cmd is None:
            if token == "\n" and not pipeline and not items:
                continue
            return None  # an operator where a command should be, or a line continued
        pipeline.append(cmd)
        cmd = None
        if token == "|":
            continue
        items.append(pipeline)
        pipeline = []
        if token == "\n":
            lines.append(items)
            items = []
            continue
        items.append(token)
    if pending is not None:
        return None
    if cmd is not None:
        pipeline.append(cmd)
    elif pipeline:
        return None  # ends with `|`
    if pipeline:
        items.append(pipeline)
    if items:
        if items[-1] in ("&&", "||"):
            return None
        lines.append(items)
    return lines or None  # nothing but comments: bashlex's error path decides


_LEXED: dict[str, list[Line] | None] = {}
"""The last lines :func:`lexed` read, by text (bounded)."""


def lexed(text: str) -> list[Line] | None:
    """:func:`lex`, remembered for the few lines read last: the plain-line judge and the
    fast lane read the same line one after the other when the judge declines it. The
    result is shared: callers must not change it."""
    if text in _LEXED:
        return _LEXED[text]
    if len(_LEXED) >= 64:
        _LEXED.clear()
    found = _LEXED[text] = lex(text)
    return found

