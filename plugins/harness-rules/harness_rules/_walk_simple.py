"""Simple commands (words, assignments, redirections), ``cd``, and the cache of the fast
pre-pass's simple commands by normalized text."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from ._builtins import CODE_ENV_EFFECT, code_env
from ._memo import RepeatMemo
from ._units import (
    PROXY_NAMES,
    CommandUnit,
    Cwds,
    Opaque,
    safe_env,
)
from ._walk_commands import CommandWalker
from ._walk_words import Stdin, Unsupported, behaviour_opaques
from ._words import Word, texts

__all__ = ["SimpleWalker"]

_SIMPLE_CACHE: RepeatMemo[Any, Any] = RepeatMemo(8192)
"""Analyses of fast pre-pass simple commands (see :meth:`_Walker.simple_cached`)."""


def _fast_key(part: Any) -> Any:
    if part.kind == "redirect":
        output = part.output
        return ("redirect", part.type, getattr(part, "input", None), output if isinstance(output, int) else output.word)
    return (part.kind, part.word)


class SimpleWalker(CommandWalker):
    """Walks simple commands (see the module docs)."""

    # simple commands

    def simple_cached(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        """:meth:`simple` for a command of the fast pre-pass, cached by its normalized text.

        Such a command holds no expansion or substitution, so what it contributes (units,
        paths, opaque items, the directories after it, an ``exec`` input) depends only on
        its words and redirections and on the context in the key: the directories it runs
        in, its standard input, whether ``echo`` output may be taken as literal, the
        shell's ``exec`` input, the nesting depth and the home directory. The same command
        inside different command lines is analysed once.
        """
        words = tuple(_fast_key(p) for p in node.parts)
        key = (words, cwds, self.stdin, self.literal_ok, self.exec_stdin, depth, self.home)
        hit = _SIMPLE_CACHE.get(key)
        if hit is None:
            units, paths, opaque = len(self.units), len(self.paths), len(self.opaque)
            source = self.source
            after = self.simple(node, cwds, depth)
            if self.source is source:
                hit = (tuple(self.units[units:]), tuple(self.paths[paths:]), tuple(self.opaque[opaque:]), after,
                       self.exec_stdin)
                _SIMPLE_CACHE.remember(key, hit)
            return after
        self.units.extend(hit[0])
        self.paths.extend(hit[1])
        self.opaque.extend(hit[2])
        self.exec_stdin = hit[4]
        cached: Cwds = hit[3]
        return cached

    def simple(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "assignment":
                self.substitutions(part, cwds, depth)
                if words:  # `cmd A=1` - an argument, not an assignment
                    words.append(self.word(part))
                else:
                    assignments.append(self.word(part))
            elif part.kind == "word":
                self.substitutions(part, cwds, depth)
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(part)
            else:
                raise Unsupported(f"unsupported part {part.kind!r} in a simple command")
        label = " ".join(texts(assignments + words)) or "(redirection)"
        self.opaque.extend(behaviour_opaques(label))  # spelled with quotes inside (`export "GLOB""IGNORE=x"`)
        stdin = self.stdin if self.stdin.kind != "inherited" or self.exec_stdin is None else self.exec_stdin
        for redirect in redirects:
            stdin = self.redirect(redirect, cwds, depth, label) or stdin
        if len(words) == 1 and words[0].text == "exec" and redirects:
            # `exec <file` redirects the shell itself: later commands read the same input
            self.exec_stdin = stdin if stdin.kind in ("inherited", "pipe") else Stdin("pipe", origin=label)
        if not words:
            if assignments:
                self.assignment_only(assignments)
            return cwds
        name = words[0].text.rpartition('/')[2]
        if name in ("cd", "pushd", "popd") and not any(code_env(a.text.partition("=")[0]) for a in assignments):
            self.units.append(self.unit(assignments, words, cwds, required=False))  # `CI=1 cd x` changes it too
            return self.change_directory(name, words[1:], cwds)
        self.command(assignments, words, cwds, depth, stdin=stdin)
        return cwds

    def assignment_only(self, assignments: Sequence[Word]) -> None:
        """``NAME=value`` alone: neutral unless it may change what later commands do; never
        allowed when the variable makes later commands run code or name other files
        (``PATH=out``, ``HOME=secrets``: bash then runs ``out/cat``, reads ``secrets/x`` for ``~/x``)."""
        names = [a.text.partition("=")[0] for a in assignments]
        text = " ".join(texts(assignments))
        neutral = all(safe_env(n) or (n.islower() and n not in PROXY_NAMES) for n in names)
        self.units.append(CommandUnit(text, (text,), (text,), required=not neutral))
        hidden = [n for n in names if code_env(n)]
        if hidden:
            self.opaque.append(Opaque(text, f"`{hidden[0]}=` {CODE_ENV_EFFECT}"))

    def change_directory(self, name: str, args: Sequence[Word], cwds: Cwds) -> Cwds:
        """The directories after ``cd``/``pushd``/``popd`` with ``args``: ``(None,)`` (only
        known at run time) for ``popd``, a stack rotation (``pushd +1``), ``cd -``, an option
        other than ``-L`` (``-P`` resolves links first, so ``..`` leaves a link's target), a
        computed operand, ``~+``/``~-``/``~user``."""
        operands = [a for a in args if not (a.text.startswith("-") and len(a.text) > 1)]
        if any(a.text.startswith("-") and len(a.text) > 1 and a.text not in ("-L", "--") for a in args):
            return (None,)
        if name == "popd" or len(operands) > 1:
            return (None,)
        if name == "pushd" and operands and operands[0].text[:1] in ("+", "-"):
            return (None,)
        if not operands:
            return (self.home,) if name == "cd" else (None,)
        target = operands[0]
        if target.dynamic or target.text == "-":
            return (None,)
        path = target.text
        if target.tilde and (path == "~" or path.startswith("~/")):
            path = self.home + path[1:]
        elif target.tilde and path.startswith("~"):
            return (None,)  # `~+` ($PWD), `~-` ($OLDPWD), `~user`
        out: list[str | None] = []
        for cwd in cwds:
            if posixpath.isabs(path):
                out.append(posixpath.normpath(path))
            elif cwd is None:
                out.append(None)
            else:
                out.append(posixpath.normpath(posixpath.join(cwd, path)))
        return tuple(dict.fromkeys(out))

