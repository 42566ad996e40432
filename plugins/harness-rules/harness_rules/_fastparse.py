"""A fast pre-pass for simple command lines, building the trees bashlex would build.

Most commands an agent runs are plain: words, quotes without expansions, ``&&``/``||``/
``;``/``&``/``|`` and file redirections (``git status && npm test 2>&1 | tail -5``).
bashlex parses about 2,000 such lines a second; :func:`fast_parse` reads them with one
regular expression and returns node objects with the same ``kind``, ``parts``, ``word``,
``pos``, ``type``, ``input``, ``output``, ``op`` and ``pipe`` attributes bashlex's nodes
have, so the one walker in :mod:`harness_rules._shell` judges both alike.

It accepts only a subset whose meaning is unambiguous (the tokens of
:data:`harness_rules._fastlex.TOKEN`): unquoted words of
``A-Za-z0-9_./:=,+@%^*?[]-`` characters (plus ``#`` inside a word), quoted text
without ``$``, backquote, backslash, ``!`` or a quote of the other kind; a comment ``#...`` at a
word start; redirections ``>``, ``>>``, ``&>``, ``&>>``, ``<`` (optionally with a file
descriptor digit) to a word and ``N>&M`` duplications; the operators above and
newlines. Anything else - expansions, substitutions, escapes, braces, ``~``, here-
documents, subshells, keywords (``if``, ``for``, ``[[``, ``!``...), an operator where a
command should be - returns ``None`` and the caller uses bashlex. The test suite checks
that the trees are identical to bashlex's for the accepted subset.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ._fastlex import ASSIGNMENT, RESERVED, TOKEN

__all__ = ["FastNode", "FastRedirect", "FastWord", "fast_parse"]

_TOKEN: Final = TOKEN
_ASSIGNMENT: Final = ASSIGNMENT
_RESERVED: Final = RESERVED
_QUOTES: Final = re.compile(r"'([^']*)'|\"([^\"]*)\"")


class FastNode:
    """A node shaped like bashlex's (``kind`` and the attributes that kind has:
    ``parts`` for commands, pipelines and lists, ``op`` for operators, ``pipe`` for
    pipes)."""

    __slots__ = ("kind", "op", "parts", "pipe", "pos")

    def __init__(self, kind: str, pos: tuple[int, int], parts: list[Any] | None = None,
                 op: str | None = None) -> None:
        self.kind = kind
        self.pos = pos
        self.parts: list[Any] = [] if parts is None else parts
        self.op = op if kind == "operator" else None
        self.pipe = op if kind == "pipe" else None

    def __repr__(self) -> str:
        return f"FastNode({self.kind!r}, {self.pos}, op={self.op!r}, parts={self.parts!r})"


class FastWord:
    """A word or assignment node (``kind``, ``word``, ``pos``; no ``parts``)."""

    __slots__ = ("kind", "pos", "word")
    parts: tuple[()] = ()

    def __init__(self, kind: str, pos: tuple[int, int], word: str) -> None:
        self.kind = kind
        self.pos = pos
        self.word = word

    def __repr__(self) -> str:
        return f"FastWord({self.kind!r}, {self.pos}, {self.word!r})"


class FastRedirect:
    """A redirection node (``type``, ``input`` when a descriptor is written, ``output``: a
    :class:`FastWord` or, for a duplication, the descriptor number)."""

    __slots__ = ("input", "output", "pos", "type")
    kind = "redirect"

    def __init__(self, rtype: str, pos: tuple[int, int], fd: int | None) -> None:
        self.type = rtype
        self.pos = pos
        self.output: FastWord | int = 0
        if fd is not None:
            self.input = fd

    def __repr__(self) -> str:
        return f"FastRedirect({self.type!r}, {self.pos}, {getattr(self, 'input', None)}, {self.output!r})"


def _unquote(raw: str) -> str:
    if "'" not in raw and '"' not in raw:
        return raw
    return _QUOTES.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), raw)


def fast_parse(text: str) -> list[FastNode] | None:
    """The bashlex-shaped trees of ``text`` (one per line), or ``None`` when ``text`` is
    outside the subset (see the module docs)."""
    trees: list[FastNode] = []
    items: list[Any] = []  # the current line's pipelines/commands and operators
    pipeline: list[Any] = []
    parts: list[Any] | None = None  # the current command's parts
    cmd_start = 0
    cmd_end = 0
    has_word = False
    has_redirect = False
    pending: FastRedirect | None = None  # a redirection waiting for its target
    pos = 0
    for m in _TOKEN.finditer(text):
        start = m.start()
        if start != pos:
            return None  # a character no token accepts
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        token = m.group()
        if kind == "word":
            if token.isdigit() and text[pos : pos + 1] in ("<", ">"):
                return None  # `12>f`: a file descriptor bashlex reads its own way
            word = _unquote(token) if ("'" in token or '"' in token) else token
            if pending is not None:
                pending.output = FastWord("word", (start, pos), word)
                pending.pos = (pending.pos[0], pos)
                assert parts is not None
                parts.append(pending)
                cmd_end = pos
                pending = None
                continue
            if parts is None:
                if token in _RESERVED or token.startswith("[["):
                    return None
                parts, cmd_start, has_word, has_redirect = [], start, False, False
            if not has_word and _ASSIGNMENT.match(token):
                if has_redirect:
                    return None  # bashlex reads an assignment after a redirection as a word
                parts.append(FastWord("assignment", (start, pos), word))
            else:
                if not has_word and (word in _RESERVED or not word):
                    return None
                has_word = True
                parts.append(FastWord("word", (start, pos), word))
            cmd_end = pos
            continue
        if pending is not None:
            return None  # a redirection without its target
        if kind == "comment":
            if parts is not None and text[start - 1] not in " \t":
                return None
            continue
        if kind == "redir" or kind == "dup":
            if parts is None:
                return None  # bashlex builds other shapes for a leading redirection
            fd = int(token[0]) if token[0].isdigit() else None
            has_redirect = True
            if kind == "dup":
                node = FastRedirect(">&", (start, pos), fd)
                node.output = int(token[-1])
                parts.append(node)
                cmd_end = pos
                continue
            pending = FastRedirect(token[1:] if fd is not None else token, (start, pos), fd)
            continue
        # an operator
        if parts is None:
            if token == "\n" and not pipeline and not items:
                continue
            return None  # an operator where a command should be, or a line continued
        pipeline.append(FastNode("command", (cmd_start, cmd_end), parts))
        parts = None
        if token == "|":
            pipeline.append(FastNode("pipe", (start, pos), op="|"))
            continue
        items.append(_pipeline(pipeline))
        pipeline = []
        if token == "\n":
            trees.append(_line(items))
            items = []
            continue
        items.append(FastNode("operator", (start, pos), op=token))
    if pos != len(text) or pending is not None:
        return None
    if parts is not None:
        pipeline.append(FastNode("command", (cmd_start, cmd_end), parts))
    elif pipeline:
        return None  # ends with `|`
    if pipeline:
        items.append(_pipeline(pipeline))
    if items:
        if items[-1].kind == "operator" and items[-1].op in ("&&", "||"):
            return None
        trees.append(_line(items))
    return trees or None  # nothing but comments: bashlex's error path decides


def _pipeline(parts: list[Any]) -> Any:
    if len(parts) == 1:
        return parts[0]
    return FastNode("pipeline", (parts[0].pos[0], parts[-1].pos[1]), parts)


def _line(items: list[Any]) -> Any:
    if len(items) == 1:
        return items[0]
    return FastNode("list", (items[0].pos[0], items[-1].pos[1]), items)
