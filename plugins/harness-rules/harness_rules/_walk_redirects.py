"""Redirections of a command (``<``, ``>``, ``>>``, ``&>``, ``<<<``, here-documents...): the
files they read and write and the standard input they set up; and ``tee``'s files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._units import (
    GLOB,
    OUTPUT_REDIRECTS,
    Cwds,
    Opaque,
    PathAccess,
    show_command,
)
from ._walk_words import Stdin, WordReader
from ._words import Options, Word, skip_options

__all__ = ["RedirectReader"]

_TEE = Options(flags="aip", long_flags=frozenset({"--append", "--ignore-interrupts", "--output-error"}))


class RedirectReader(WordReader):
    """Reads redirections (see the module docs)."""

    def tee(self, args: Sequence[Word], cwds: Cwds, label: str) -> None:
        scanned = skip_options(args, _TEE)
        files = args if scanned is None else args[scanned[0] :]
        if scanned is None:
            files = [a for a in args if not a.text.startswith("-")]
        for word in files:
            self.write_target(word, cwds, f"written by `{label}`")

    def redirect(self, node: Any, cwds: Cwds, depth: int, label: str) -> Stdin | None:
        """Record a redirection; returns the standard input it sets up, if it does."""
        rtype = node.type
        output = node.output
        to_stdin = getattr(node, "input", None) in (None, 0)
        if rtype in ("<<", "<<-"):
            stdin = self.heredoc(node)
            return stdin if to_stdin else None
        if not hasattr(output, "kind"):  # a file-descriptor duplication such as 2>&1 or <&3
            if rtype == "<&" and to_stdin and output != 0:
                return Stdin("pipe", origin=f"file descriptor {output}")
            return None
        self.substitutions(output, cwds, depth)
        word = self.word(output, unsplit=rtype == "<<<")
        if rtype == "<<<":
            if not to_stdin:
                return None
            if not word.dynamic:
                return Stdin("literal", word.text, "a here-string")
            if word.output is not None:
                return Stdin("literal", word.output, "a here-string")
            return Stdin("pipe", origin="a here-string computed at run time")
        if rtype in OUTPUT_REDIRECTS:
            if rtype == ">&" and (word.text.isdigit() or word.text == "-"):
                return None
            self.write_target(word, cwds, f"written by `{label} {rtype} {word.text}`")
            if rtype != "<>":
                return None
            # `<>` opens the file for reading too: read rules hold as for `<`
            if word.dynamic:
                self.opaque.append(Opaque(word.raw or word.text, f"`{label} <>` reads a file named at run time",
                                          kind="read"))
                return Stdin("pipe", origin=f"`{show_command(word.raw or word.text, 60)}`") if to_stdin else None
            path = self.tilde(word)
            self.paths.append(PathAccess(path, cwds, "read", f"read by `{label} <> {word.text}`",
                                         glob=bool(GLOB.search(path))))
            return Stdin("file", origin=f"`{word.text}`") if to_stdin else None
        elif rtype in ("<", "<&"):
            if rtype == "<&" and word.text == "-":
                return None
            if word.dynamic:
                self.opaque.append(Opaque(word.raw or word.text, f"`{label} {rtype}` reads a file named at run time",
                                          kind="read"))
                if not to_stdin:
                    return None
                if word.output is not None and word.raw.startswith("<("):  # `bash < <(echo ...)`
                    return Stdin("literal", word.output, "a process substitution")
                return Stdin("pipe", origin=f"`{show_command(word.raw or word.text, 60)}`, computed at run time")
            path = self.tilde(word)
            self.paths.append(PathAccess(path, cwds, "read", f"read by `{label} {rtype} {word.text}`",
                                         glob=bool(GLOB.search(path))))
            if to_stdin:
                return Stdin("file", origin=f"`{word.text}`")
        return None

