"""awk programs that run commands or open files their command line does not name.

An awk program runs shell commands (``system()``, ``print | "cmd"``, ``"cmd" | getline``),
reads files named inside it (``getline < FILE``, ``ARGV[1] = FILE``), writes files
(``print > FILE``) and, in gawk, loads source or extensions (``@include``, ``@load``,
``-i``, ``-l``, ``-E``, ``-f``). :func:`awk_problem` says why an ``awk``/``gawk``/``mawk``
command with such a program (or a program read from a file) cannot be judged as written,
or ``None`` for a program that only reads its operands and prints (``NR>1 {print $2}``).

The reading is textual and conservative: any ``system``, ``getline``, ``ARGV``, ``@`` or
lone ``|`` counts, and so does a ``>`` anywhere after the first ``print``/``printf`` (a
comparison there, ``{print; if (n > 1) x++}``, is asked about too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ._words import SENTINEL

__all__ = ["AWKS", "awk_problem"]

AWKS: Final = frozenset({"awk", "gawk", "mawk", "nawk", "original-awk", "busybox-awk"})
"""Command names read as awk."""

_VALUED: Final = frozenset({"-F", "-v", "--field-separator", "--assign"})
"""Options whose value is neither a program nor a file awk opens."""
_RISKY: Final = ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec", "-W", "-d", "--dump-variables",
                 "-o", "--pretty-print", "-p", "--profile", "-D", "--debug")
"""Options that read a program from a file, load code, or write a file awk names itself."""
_SOURCE: Final = frozenset({"-e", "--source"})
_CODE: Final = re.compile(r"system|getline|ARGV|@|\|")
_PRINT: Final = re.compile(r"\bprintf?\b")


def awk_problem(args: Sequence[str]) -> str | None:
    """Why the awk command with arguments ``args`` (texts) may run a command or open a file
    its arguments do not name, or ``None``."""
    programs: list[str] = []
    i = 0
    while i < len(args):
        text = args[i]
        if text == "--":
            i += 1
            break
        if not text.startswith("-") or text == "-":
            break
        name = text.partition("=")[0] if text.startswith("--") else text[:2]
        if name in _VALUED:
            i += 2 if text == name else 1
            continue
        if name in _SOURCE:
            value = text.partition("=")[2] if text.startswith("--") else text[2:]
            if not value and "=" not in text:
                i += 1
                value = args[i] if i < len(args) else ""
            programs.append(value)
            i += 1
            continue
        if name in _RISKY:
            return f"`awk {name}` reads its program from a file, loads code or writes a file the rules do not see"
        i += 1
    if not programs and i < len(args):
        programs.append(args[i])
    for program in programs:
        if not _inert(program):
            return ("the awk program may run a command or read or write a file it names (`system()`, `getline`, "
                    "`print >`, a pipe, `ARGV`)")
    return None


def _inert(program: str) -> bool:
    if SENTINEL in program or _CODE.search(program.replace("||", "")):
        return False
    found = _PRINT.search(program)
    return found is None or ">" not in program[found.end():]
