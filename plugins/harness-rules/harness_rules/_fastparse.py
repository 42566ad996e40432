"""A fast pre-pass for simple command lines, building the trees bashlex would build.

Most commands an agent runs are plain: words, quotes without expansions, ``&&``/``||``/
``;``/``&``/``|`` and file redirections (``git status && npm test 2>&1 | tail -5``).
bashlex parses about 2,000 such lines a second; :func:`fast_parse` reads them with one
regular expression and returns node objects with the same ``kind``, ``parts``, ``word``,
``pos``, ``type``, ``input``, ``output``, ``op`` and ``pipe`` attributes bashlex's nodes
have, so the one walker in :mod:`harness_rules._shell` judges both alike.

It accepts only a subset whose meaning is unambiguous: unquoted words of
``A-Za-z0-9_./:=,+@%^*?[]-`` characters (plus ``#`` inside a word), single-quoted text,
double-quoted text without ``$``, backquote, backslash or ``!``; a comment ``#...`` at a
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

__all__ = ["FastNode", "fast_parse"]

_TOKEN: Final = re.compile(
    r"""(?P<ws>[ \t]+)
    |(?P<dup>[0-9]?>&[0-9](?![0-9A-Za-z_.\-/]))
    |(?P<redir>(?:[0-9]?>>?|&>>?|[0-9]?<)(?![<>&|(]))
    |(?P<word>(?:[A-Za-z0-9_./:=,+@%^*?\[\]-]|'[^']*'|"[^"$`\\!]*")(?:[A-Za-z0-9_./:=,+@%^*?\[\]#-]|'[^']*'|"[^"$`\\!]*")*)
    |(?P<op>&&|\|\||[;&|\n])
    |(?P<comment>\#[^\n]*)
    """,
    re.VERBOSE,
)
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_RESERVED: Final = frozenset({
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "select",
    "function", "time", "coproc", "{", "}", "[[", "]]", "!",
})
_QUOTES: Final = re.compile(r"'([^']*)'|\"([^\"]*)\"")


class FastNode:
    """A node shaped like bashlex's (``kind`` and the attributes that kind has)."""

    def __init__(self, kind: str, pos: tuple[int, int], **attrs: Any) -> None:
        self.kind = kind
        self.pos = pos
        self.parts: list[FastNode] = []
        for key, value in attrs.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        extra = {k: v for k, v in vars(self).items() if k not in ("kind", "pos", "parts")}
        return f"FastNode({self.kind!r}, {self.pos}, {extra}, parts={self.parts!r})"


def _unquote(raw: str) -> str:
    if "'" not in raw and '"' not in raw:
        return raw
    return _QUOTES.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), raw)


def fast_parse(text: str) -> list[FastNode] | None:
    """The bashlex-shaped trees of ``text`` (one per line), or ``None`` when ``text`` is
    outside the subset (see the module docs)."""
    trees: list[FastNode] = []
    items: list[FastNode] = []  # the current line's pipelines/commands and operators
    pipeline: list[FastNode] = []
    command: FastNode | None = None
    pending: FastNode | None = None  # a redirection waiting for its target
    pos = 0
    end = len(text)
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos)
        if m is None:
            return None
        kind = m.lastgroup
        start, pos = m.span()
        if kind == "ws":
            continue
        token = m.group()
        if kind == "word":
            if token.isdigit() and text[pos : pos + 1] in ("<", ">"):
                return None  # `12>f`: a file descriptor bashlex reads its own way
            word = _unquote(token)
            if pending is not None:
                target = FastNode("word", (start, pos), word=word)
                pending.output = target
                pending.pos = (pending.pos[0], pos)
                assert command is not None
                command.parts.append(pending)
                command.pos = (command.pos[0], pos)
                pending = None
                continue
            if command is None:
                if token in _RESERVED or token.startswith(("#", "[[")):
                    return None
                command = FastNode("command", (start, pos))
            words = [p for p in command.parts if p.kind == "word"]
            if not words and _ASSIGNMENT.match(token):
                if any(p.kind == "redirect" for p in command.parts):
                    return None  # bashlex reads an assignment after a redirection as a word
                command.parts.append(FastNode("assignment", (start, pos), word=word))
            else:
                if not words and (word in _RESERVED or not word):
                    return None
                command.parts.append(FastNode("word", (start, pos), word=word))
            command.pos = (command.pos[0], pos)
            continue
        if pending is not None:
            return None  # a redirection without its target
        if kind == "comment":
            if command is not None and text[start - 1] not in " \t":
                return None
            continue
        if kind in ("redir", "dup"):
            if command is None:
                return None  # bashlex builds other shapes for a leading redirection
            digits = token[0] if token[0].isdigit() else None
            if kind == "dup":
                node = FastNode("redirect", (start, pos), type=">&", output=int(token[-1]))
                if digits is not None:
                    node.input = int(digits)
                command.parts.append(node)
                command.pos = (command.pos[0], pos)
                continue
            rtype = token[1:] if digits is not None else token
            pending = FastNode("redirect", (start, pos), type=rtype)
            if digits is not None:
                pending.input = int(digits)
            continue
        # an operator
        if command is None or not any(p.kind in ("word", "assignment") for p in command.parts):
            if token == "\n" and command is None and not pipeline:
                if items:
                    return None  # a line ending with an operator continues: leave it to bashlex
                continue
            return None
        pipeline.append(command)
        command = None
        if token == "|":
            pipeline.append(FastNode("pipe", (start, pos), pipe="|"))
            continue
        items.append(_pipeline(pipeline))
        pipeline = []
        if token == "\n":
            trees.append(_line(items))
            items = []
            continue
        items.append(FastNode("operator", (start, pos), op=token))
    if pending is not None:
        return None
    if command is not None:
        if not any(p.kind in ("word", "assignment") for p in command.parts):
            return None
        pipeline.append(command)
    elif pipeline:
        return None  # ends with `|`
    if pipeline:
        items.append(_pipeline(pipeline))
    if items:
        if items[-1].kind == "operator" and items[-1].op in ("&&", "||"):
            return None
        trees.append(_line(items))
    return trees or None  # nothing but comments: bashlex's error path decides


def _pipeline(parts: list[FastNode]) -> FastNode:
    if len(parts) == 1:
        return parts[0]
    node = FastNode("pipeline", (parts[0].pos[0], parts[-1].pos[1]))
    node.parts = parts
    return node


def _line(items: list[FastNode]) -> FastNode:
    if len(items) == 1:
        return items[0]
    node = FastNode("list", (items[0].pos[0], items[-1].pos[1]))
    node.parts = items
    return node
