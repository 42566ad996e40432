"""Reading bashlex word nodes as :class:`~harness_rules._words.Word` s, the fixed text some
commands print (``echo``, ``printf``, ``cat`` of a literal here-document), here-documents,
and written paths: the base of the shell walker (:class:`harness_rules._walker.Walker`).
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

import attrs

from ._expand import substitution_texts
from ._fastparse import FastWord
from ._units import (
    GLOB,
    CommandUnit,
    Cwds,
    Opaque,
    PathAccess,
    dev_sink,
    textual_opaque,
)
from ._words import Word, texts

__all__ = ["BEHAVIOUR_VARIABLES", "CDPATH_OPAQUE", "GLOBIGNORE_OPAQUE", "INHERITED", "behaviour_opaques", "Stdin", "Unsupported", "WordReader", "literal_print"]

_ECHO_FLAGS: Final = re.compile(r"-[neE]+")
_UNSAFE_LITERAL: Final = re.compile(r"[\\*?\[{~]")


@attrs.frozen(cache_hash=True)
class Stdin:
    """Where a command's standard input comes from.

    ``inherited``: the caller's; ``literal``: ``text`` (a here-document, a here-string,
    fixed output piped in); ``pipe``: output known only at run time; ``file``: a file.
    """

    kind: Literal["inherited", "literal", "pipe", "file"]
    text: str = ""
    origin: str = ""


INHERITED: Final = Stdin("inherited")

GLOBIGNORE_OPAQUE: Final = Opaque("GLOBIGNORE", "setting `GLOBIGNORE` makes wildcards match hidden files (as "
                                  "`shopt -s dotglob` does), so what they expand to is not known here", kind="read")
"""Recorded for any command line naming ``GLOBIGNORE`` (``GLOBIGNORE=x; cat *`` reads ``.env``)."""
CDPATH_OPAQUE: Final = Opaque("CDPATH", "setting `CDPATH` makes `cd` search other directories, so where later "
                              "commands run is not known here", kind="read")
"""Recorded for any command line naming ``CDPATH`` (``CDPATH=secrets; cd sub && cat x`` reads below ``secrets``)."""
BEHAVIOUR_VARIABLES: Final = {"GLOBIGNORE": GLOBIGNORE_OPAQUE, "CDPATH": CDPATH_OPAQUE}
"""Variables that change how the shell expands wildcards or finds directories, with what a
command line naming one of them records."""


def behaviour_opaques(text: str) -> list[Opaque]:
    """The :data:`BEHAVIOUR_VARIABLES` items for the variables ``text`` names."""
    return [item for name, item in BEHAVIOUR_VARIABLES.items() if name in text]


def literal_print(name: str, args: list[str]) -> str | None:
    """What ``name args`` prints when that is fixed text: ``echo`` or ``printf`` of plain
    words (no escapes, wildcards or ``printf`` directives), run without redirections;
    else ``None``."""
    if name == "echo":
        while args and _ECHO_FLAGS.fullmatch(args[0]):
            args = args[1:]
        return None if any(_UNSAFE_LITERAL.search(a) for a in args) else " ".join(args)
    if name == "printf" and len(args) == 1:
        return None if "%" in args[0] or _UNSAFE_LITERAL.search(args[0]) else args[0]
    return None


class Unsupported(Exception):
    """A construct the walker refuses to judge."""


class WordReader:
    """The state of a walk over bashlex trees (units, paths and opaque items found) and
    how it reads words; the walking itself is in the subclasses.

    Args:
        home: the home directory.
        stdin: the standard input commands inherit.
        literal_ok: outputs of ``echo``/``printf``/``cat`` may be taken as literal (False
            once the command line may redefine them).
    """

    def __init__(self, home: str, stdin: Stdin = INHERITED, literal_ok: bool = True) -> None:
        self.home = home
        self.units: list[CommandUnit] = []
        self.paths: list[PathAccess] = []
        self.opaque: list[Opaque] = []
        self.quoted_delimiters: set[str] = set()
        self.unquoted_delimiters: set[str] = set()
        self.source = ""
        self.stdin = stdin
        self.exec_stdin: Stdin | None = None
        self.literal_ok = literal_ok
        self.fd_reads = False  # a `<` somewhere: descriptor paths may name a file (see dev_sink)


    # walked by the subclasses (harness_rules._walker.Walker)

    def script(self, text: str, cwds: Cwds, depth: int) -> str | None:
        """Walk a whole script; returns an error message when it cannot be parsed."""
        raise NotImplementedError

    def node(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        """Walk one node; returns the directories it may leave the shell in."""
        raise NotImplementedError

    def substitutions(self, node: Any, cwds: Cwds, depth: int) -> None:
        """Walk the substitutions inside a word or assignment."""
        raise NotImplementedError

    # words

    def word(self, node: Any, *, unsplit: bool = False) -> Word:
        """A bashlex word node as a :class:`Word`.

        bashlex decodes ``$'...'`` (ANSI-C) and ``$"..."`` (locale) quoting wrongly, so a
        word written with them is treated as computed at run time. ``unsplit``: the word is
        not split into several (a here-string), so an unquoted substitution's output is
        its value.
        """
        if type(node) is FastWord:  # the fast pre-pass: literal text, no expansions
            start, end = node.pos
            return Word(node.word, raw=self.source[start:end])
        parts = list(getattr(node, "parts", ()) or ())
        kinds = {part.kind for part in parts}
        start, end = getattr(node, "pos", (0, 0))
        raw = self.source[start:end]
        output: str | None = None
        if len(parts) == 1 and parts[0].kind in ("commandsubstitution", "processsubstitution"):
            sub_start, sub_end = parts[0].pos
            whole = self.source[sub_start:sub_end]
            # a process substitution is one file name; a command substitution is one word
            # only inside double quotes (unquoted, its output is split and globbed)
            quoted = raw == f'"{whole}"' or (  # bashlex ends the node early when it holds a here-document
                raw.startswith('"$(') and raw.endswith(')"') and substitution_texts(raw[1:-1]) == [raw[3:-2]])
            if (raw == whole and (parts[0].kind == "processsubstitution" or unsplit)) or quoted:
                output = self.literal_output(parts[0].command)
        return Word(
            node.word,
            dynamic=bool(kinds & {"parameter", "commandsubstitution", "processsubstitution"})
            or "$'" in raw or '$"' in raw,
            tilde="tilde" in kinds,
            raw=raw,
            output=output,
        )

    def literal_output(self, node: Any) -> str | None:
        """What ``node`` prints when that is fixed text: ``echo`` or ``printf`` of plain words
        (no escapes, wildcards, expansions or ``printf`` directives), ``cat`` of a literal
        here-document or here-string; else ``None``."""
        if not self.literal_ok or node.kind != "command":
            return None
        words: list[Word] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "word":
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(part)
            else:
                return None
        if not words or any(w.dynamic or w.tilde for w in words):
            return None
        name, args = words[0].text, texts(words[1:])
        if not redirects:
            return literal_print(name, args)
        if name == "cat" and not args and len(redirects) == 1:
            redirect = redirects[0]
            if redirect.type == "<<<" and hasattr(redirect.output, "kind"):
                word = self.word(redirect.output, unsplit=True)
                return None if word.dynamic else word.text
            if redirect.type in ("<<", "<<-"):
                body, literal = self.heredoc_body(redirect)
                return body if literal or not re.search(r"[$`\\]", body) else None
        return None

    def write_target(self, word: Word, cwds: Cwds, origin: str, *, required: bool = True) -> None:
        if word.dynamic:
            self.opaque.append(Opaque(word.text, f"{origin} writes to a path computed at run time", kind="path"))
            return
        path = self.tilde(word)
        if dev_sink(path, self.fd_reads):
            return
        self.paths.append(PathAccess(path, cwds, "write", origin, glob=bool(GLOB.search(path)), required=required))

    def heredoc_body(self, node: Any) -> tuple[str, bool]:
        """A here-document's body and whether it is literal (quoted delimiter)."""
        delimiter = getattr(node.output, "word", "")
        body = getattr(getattr(node, "heredoc", None), "value", "") or ""
        if body.endswith(delimiter):
            body = body[: -len(delimiter)]
        # literal only when every here-document with this delimiter had it quoted
        literal = delimiter in self.quoted_delimiters and delimiter not in self.unquoted_delimiters
        return body, literal

    def heredoc(self, node: Any) -> Stdin:
        body, literal = self.heredoc_body(node)
        if not literal and ("$(" in body or "`" in body):
            self.opaque.append(textual_opaque(body, "an unquoted here-document runs command substitutions"))
            return Stdin("pipe", origin="a here-document with command substitutions")
        return Stdin("literal", body, "a here-document")

    def tilde(self, word: Word) -> str:
        text = word.text
        if word.tilde and (text == "~" or text.startswith("~/")):
            return self.home + text[1:]
        return text


