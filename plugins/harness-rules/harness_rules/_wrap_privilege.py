"""Handlers of guarded wrappers (``sudo``, ``doas``, ``su``, ``runuser``, ``pkexec``,
``chroot``, ``firejail``, ``find -exec``): the wrapper must be allowed as well as what it runs.
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

import attrs

from ._grammars import SU
from ._unwrap import (
    SHELLS,
    Handler,
    Unwrap,
    argv_unwrap,
    opaque_unwrap,
    script_unwrap,
    stdin_unwrap,
    unknown_options,
)
from ._words import SENTINEL, Options, Word, scan_options, skip_options
from ._wrap_scripts import unwrap_shell

__all__ = [
    "guarded_after",
    "privileged",
    "unwrap_find",
    "unwrap_firejail",
    "unwrap_runuser",
    "unwrap_su",
]


def privileged(spec: Options, what: str) -> Handler:
    """``sudo``/``doas``: guarded; ``-s``/``-i`` without a command start a shell."""

    def handler(args: list[Word]) -> Unwrap | None:
        if what == "sudo" and any(a.text in ("-e", "--edit") for a in args):
            return opaque_unwrap("`sudo -e` edits files as another user")
        if any(a.text.startswith(("--chdir", "-D")) for a in args):
            return opaque_unwrap(f"`{what}` that changes directory")
        scanned = skip_options(args, spec)
        if scanned is None:
            return unknown_options(what)
        start, seen = scanned
        inner = args[start:]
        if inner:
            return argv_unwrap(inner, guarded=True)
        if any(name in ("-s", "-i", "--shell", "--login") for name, _ in seen):
            return stdin_unwrap(f"`{what}` starting a shell", guarded=True)
        return None

    return handler


def unwrap_find(args: list[Word]) -> Unwrap | None:
    inners: list[list[Word]] = []
    i = 0
    while i < len(args):
        if args[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            inner: list[Word] = []
            while j < len(args) and args[j].text not in (";", "+"):
                inner.append(args[j].replaced("{}", SENTINEL))
                j += 1
            if j == len(args) or not inner:
                return opaque_unwrap("`find -exec` without its terminating `;` or `+`")
            inners.append(inner)
            i = j
        i += 1
    return argv_unwrap(*inners, guarded=True) if inners else None


def unwrap_su(args: list[Word], *, what: str = "su") -> Unwrap | None:
    """``su [options] [-] [USER [ARGS]]`` (options anywhere, as GNU getopt reads them);
    ``runuser -u USER [--] CMD...`` runs CMD directly."""
    cleaned = [a for a in args if a.text != "-"]  # `-`: a login shell
    scanned = scan_options(cleaned, SU)
    if scanned is None:
        return unknown_options(what)
    shell = scanned.value("-s", "--shell")
    if shell is not None and (shell.dynamic or posixpath.basename(shell.text) not in SHELLS):
        return opaque_unwrap(f"`{what}` running a program other than a known shell")
    if what == "runuser" and scanned.has("-u", "--user"):
        if not scanned.operands:
            return stdin_unwrap(f"`{what}`", guarded=True)
        return argv_unwrap(scanned.operands, guarded=True)
    command = scanned.value("-c", "--command", "-C", "--session-command")
    if command is not None:
        return script_unwrap(command, f"`{what} -c`", guarded=True)
    shell_args = list(scanned.operands[1:])
    if shell_args:  # passed to the user's shell: `su root -- -c 'CMD'`
        outcome = unwrap_shell(shell_args)
        return None if outcome is None else attrs.evolve(outcome, guarded=True)
    return stdin_unwrap(f"`{what}`", guarded=True)


def unwrap_runuser(args: list[Word]) -> Unwrap | None:
    return unwrap_su(args, what="runuser")


_FIREJAIL_OPTION: Final = re.compile(r"--[a-z0-9][a-z0-9-]*(?:=.*)?", re.DOTALL)


def unwrap_firejail(args: list[Word]) -> Unwrap | None:
    """``firejail [--option[=value]]... CMD...``: guarded."""
    writes: list[tuple[Word, bool]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.dynamic:
            return opaque_unwrap("`firejail` with options computed at run time")
        if word.text == "--":
            i += 1
            break
        if not word.text.startswith("-"):
            break
        if _FIREJAIL_OPTION.fullmatch(word.text) is None:
            return unknown_options("firejail")
        name, _, value = word.text.partition("=")
        if name in ("--output", "--output-stderr") and value:
            writes.append((Word(value), True))
        i += 1
    inner = args[i:]
    return argv_unwrap(inner, guarded=True, writes=writes) if inner else None


def guarded_after(spec: Options, what: str, *, operands_before: int = 0) -> Handler:
    """``pkexec [options] CMD...``, ``chroot [options] NEWROOT [CMD...]``: guarded."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return unknown_options(what)
        rest = args[scanned[0] :]
        if len(rest) < operands_before:
            return None
        if any(w.dynamic for w in rest[:operands_before]):
            return opaque_unwrap(f"`{what}` with an operand computed at run time")
        inner = rest[operands_before:]
        if inner:
            return argv_unwrap(inner, guarded=True)
        return stdin_unwrap(f"`{what}`", guarded=True) if operands_before else None

    return handler


