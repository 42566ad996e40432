"""Handlers of wrappers that run shell text (``bash -c``, ``eval``, ``watch``, ``script -c``,
``parallel``, ``trap``, ``alias``, ``source``) or read it from standard input (``bash -s``).
"""

from __future__ import annotations

import re
import shlex
from typing import Final

import attrs

from ._grammars import (
    PARALLEL,
    SCRIPT,
    SHELL,
    WATCH,
)
from ._shell_options import option_name_risk, set_letters_risk, shopt_name_risk
from ._unwrap import (
    STDIN_FILES,
    Unwrap,
    argv_unwrap,
    opaque_unwrap,
    script_unwrap,
    stdin_unwrap,
    unknown_options,
)
from ._words import Word, scan_options, skip_options, texts

__all__ = [
    "unwrap_alias",
    "unwrap_eval",
    "unwrap_parallel",
    "unwrap_script_command",
    "unwrap_shell",
    "unwrap_source",
    "unwrap_trap",
    "unwrap_watch",
]


def unwrap_shell(args: list[Word]) -> Unwrap | None:
    """``bash [options] [-c STRING | -s | FILE] [args]``; under an option that changes how
    the commands are read (``-k``, ``-o posix``, ``-O xpg_echo``...) what it runs is judged
    but never allowed automatically (its :attr:`~harness_rules._unwrap.Unwrap.caveat`)."""
    caveats: list[str] = []
    found = _unwrap_shell(args, caveats)
    if not caveats:
        return found
    if found is None:
        return opaque_unwrap(caveats[0])
    return attrs.evolve(found, caveat=caveats[0])


def _unwrap_shell(args: list[Word], caveats: list[str]) -> Unwrap | None:
    script_mode = stdin_mode = False
    i = 0
    while i < len(args):
        text = args[i].text
        if args[i].dynamic:
            if _operand_value(args[i]) is not None:
                break
            return opaque_unwrap("a shell started with options computed at run time")
        if text in ("--", "-"):
            i += 1
            break
        if text.startswith("--"):
            if text in SHELL.long_flags:
                if text == "--posix":
                    caveats.append("a shell started with `--posix` expands aliases")
                i += 1
                continue
            if text in ("--init-file", "--rcfile"):
                return opaque_unwrap(f"a shell sourcing the startup file of {text}")
            if text in SHELL.long_valued:
                i += 2
                continue
            return opaque_unwrap(f"a shell started with the option {text!r}")
        if text.startswith(("-", "+")) and len(text) > 1:
            letters = text[1:]
            if not all(ch in SHELL.flags + SHELL.valued for ch in letters):
                return opaque_unwrap(f"a shell started with the option {text!r}")
            why = _option_risk(letters, args[i + 1].text if i + 1 < len(args) else "")
            if why is not None:
                caveats.append(f"a shell started with {text!r}: {why}")
            script_mode = script_mode or "c" in letters
            stdin_mode = stdin_mode or (text[0] == "-" and "s" in letters)
            if letters[-1] in SHELL.valued:
                i += 1
            i += 1
            continue
        break
    operands = args[i:]
    if script_mode:
        if not operands:
            return opaque_unwrap("`-c` without a command string")
        return script_unwrap(operands[0], "a shell")
    if stdin_mode or not operands or (operands[0].text in STDIN_FILES and not operands[0].dynamic):
        return stdin_unwrap("a shell")
    first = operands[0]
    if first.dynamic:
        if first.raw.startswith("<(") and first.output is not None:  # bash <(echo ...)
            return Unwrap("script", script=first.output)
        return opaque_unwrap("a shell running a script whose name or text is computed at run time")
    return None  # runs a script file: judged as written


def _option_risk(letters: str, value: str) -> str | None:
    """Why a shell's flag cluster (``-eu``, ``-ko``, ``-O`` with its ``value``) changes how
    the commands it runs are read (see :mod:`~harness_rules._shell_options`), or ``None``."""
    why = set_letters_risk(letters)
    if why is not None:
        return why
    valued = [letter for letter in letters if letter in SHELL.valued]
    if not valued:
        return None
    if len(valued) > 1 or letters[-1] not in SHELL.valued:
        return "several option values, or one not last in its cluster"
    return option_name_risk(value) if valued[0] == "o" else shopt_name_risk(value)


def _operand_value(word: Word) -> str | None:
    """The value of a computed word that cannot be an option: a process substitution (a
    file name) or a quoted substitution of fixed text not starting with ``-``/``+``."""
    if word.raw.startswith("<("):
        return word.raw
    if word.output is not None and not word.output.startswith(("-", "+")):
        return word.output
    return None


def unwrap_eval(args: list[Word]) -> Unwrap | None:
    if not args:
        return None
    if len(args) == 1 and args[0].dynamic:
        return script_unwrap(args[0], "`eval`")
    if any(a.dynamic for a in args):
        return opaque_unwrap("`eval` of text computed at run time")
    return Unwrap("script", script=" ".join(texts(args)))


def unwrap_watch(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, WATCH)
    if scanned is None:
        return unknown_options("watch")
    start, seen = scanned
    rest = args[start:]
    if not rest:
        return None
    if any(opt in ("-x", "--exec") for opt, _ in seen):
        return argv_unwrap(rest)
    if any(a.dynamic for a in rest):
        return opaque_unwrap("`watch` of text computed at run time")
    return Unwrap("script", script=" ".join(texts(rest)))


def unwrap_script_command(args: list[Word]) -> Unwrap | None:
    """``script [options] [FILE]``: runs ``-c STRING`` (or a shell) and writes FILE."""
    scanned = scan_options(args, SCRIPT)
    if scanned is None:
        return unknown_options("script")
    writes: list[tuple[Word, bool]] = []
    for name, value in scanned.seen:
        if name in ("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing",
                    "-t", "--timing") and value is not None:
            writes.append((value, True))
    if scanned.operands:
        writes.append((scanned.operands[0], True))
    elif not scanned.has("-O", "--log-out", "-B", "--log-io"):
        writes.append((Word("typescript"), True))
    command = scanned.value("-c", "--command")
    if command is not None:
        return script_unwrap(command, "`script -c`", writes=writes)
    return stdin_unwrap("`script`", writes=writes)


_PARALLEL_SEPARATORS: Final = frozenset({":::", "::::", ":::+", "::::+"})
_PARALLEL_REPLACEMENT: Final = r"\{[^{}\s=]*\}"


def unwrap_parallel(args: list[Word]) -> Unwrap | None:
    """GNU ``parallel [options] CMD... ::: ARGS``: CMD is shell text, with its replacement
    strings (``{}``, ``{.}``, ``-I STR``...) or appended arguments known only at run time."""
    scanned = skip_options(args, PARALLEL)
    if scanned is None:
        return unknown_options("parallel")
    start, seen = scanned
    writes = [(value, True) for name, value in seen if name in ("--joblog", "--results") and value is not None]
    if any(name in ("-a", "--arg-file", "--argfile") for name, _ in seen) or any(
            w.text in ("::::", ":::+", "::::+") for w in args[start:]):
        return opaque_unwrap("`parallel` reads its arguments from a file")
    command: list[Word] = []
    for word in args[start:]:
        if word.text in _PARALLEL_SEPARATORS:
            break
        command.append(word)
    if not command:
        return opaque_unwrap("`parallel` runs commands read from its input")
    if any(w.dynamic for w in command):
        return opaque_unwrap("`parallel` of a command computed at run time")
    replace: str | None = None
    for name, value in seen:
        if name in ("-I", "--replace", "-i"):
            replace = value.text if value is not None else "{}"
    words = texts(command)
    text = shlex.join(words) if any(name in ("-q", "--quote") for name, _ in seen) else " ".join(words)
    if "{=" in text:
        return opaque_unwrap("`parallel` with a Perl replacement expression")
    placeholder = re.escape(replace) if replace else _PARALLEL_REPLACEMENT
    if re.search(placeholder, text) is None:
        text += " {}" if not replace else f" {replace}"
    return Unwrap("script", script=text, placeholder=placeholder, writes=tuple(writes))


def unwrap_trap(args: list[Word]) -> Unwrap | None:
    """``trap [--] ACTION SIGNAL...``: ACTION is shell text run later."""
    rest = args[1:] if args and args[0].text == "--" else args
    if len(rest) < 2 or rest[0].text.startswith("-") or not rest[0].text:
        return None  # lists, prints or resets traps
    return script_unwrap(rest[0], "`trap`")


def unwrap_alias(args: list[Word]) -> Unwrap | None:
    """``alias NAME=VALUE...``: each VALUE is shell text run where NAME is used."""
    values: list[str] = []
    for arg in args:
        _, eq, value = arg.text.partition("=")
        if not eq or arg.text.startswith("-"):
            continue
        if arg.dynamic:
            return opaque_unwrap("`alias` of text computed at run time")
        if value.strip():
            values.append(value)
    return Unwrap("script", script="\n".join(values)) if values else None


def unwrap_source(args: list[Word]) -> Unwrap | None:
    """``. FILE`` / ``source FILE``: standard input and substitutions are read as scripts."""
    rest = args[1:] if args and args[0].text == "--" else args
    if not rest:
        return None
    target = rest[0]
    if target.dynamic:
        if target.output is not None:  # . <(echo ...)
            return Unwrap("script", script=target.output)
        return opaque_unwrap("`source` of a file or text computed at run time")
    if target.text in STDIN_FILES:
        return stdin_unwrap("`source` of standard input", fallback="opaque")
    return None  # a script file: judged as written


