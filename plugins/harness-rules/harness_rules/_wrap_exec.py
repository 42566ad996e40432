"""Handlers of harmless wrappers that run their command as words (``nice``, ``timeout``,
``env``, ``xargs``, ``flock``, ``busybox``...): only the inner command is judged.
"""

from __future__ import annotations

from ._grammars import (
    COMMAND,
    ENV,
    FLOCK,
    IONICE,
    TIME,
    TIMEOUT,
    XARGS,
)
from ._unwrap import (
    Handler,
    Unwrap,
    argv_unwrap,
    opaque_unwrap,
    script_unwrap,
    unknown_options,
)
from ._words import SENTINEL, Options, Word, skip_options

__all__ = [
    "after_operand",
    "after_options",
    "applet",
    "unwrap_command_builtin",
    "unwrap_env",
    "unwrap_flock",
    "unwrap_ionice",
    "unwrap_time",
    "unwrap_timeout",
    "unwrap_xargs",
]


def after_options(spec: Options, what: str) -> Handler:
    """``WRAPPER [options] CMD...``: harmless, runs CMD."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return unknown_options(what)
        inner = args[scanned[0] :]
        return argv_unwrap(inner) if inner else None

    return handler


def after_operand(spec: Options, what: str, *, no_command: tuple[str, ...] = ()) -> Handler:
    """``WRAPPER [options] OPERAND CMD...`` (``taskset MASK``, ``chrt PRIORITY``); options in
    ``no_command`` (``-p PID``) mean it runs nothing."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return unknown_options(what)
        start, seen = scanned
        if any(name in no_command for name, _ in seen):
            return None
        rest = args[start:]
        if len(rest) < 2:
            return None
        if rest[0].dynamic:
            return opaque_unwrap(f"`{what}` with an operand computed at run time")
        return argv_unwrap(rest[1:])

    return handler


def unwrap_command_builtin(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, COMMAND)
    if scanned is None:
        return unknown_options("command")
    start, seen = scanned
    if any(opt in ("-v", "-V") for opt, _ in seen) or not args[start:]:
        return None  # only looks the name up
    return argv_unwrap(args[start:])


def unwrap_timeout(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, TIMEOUT)
    if scanned is None:
        return unknown_options("timeout")
    rest = args[scanned[0] :]
    return argv_unwrap(rest[1:]) if len(rest) >= 2 else None


def unwrap_env(args: list[Word]) -> Unwrap | None:
    if any(a.text in ("-S", "-C") or a.text.startswith(("--split-string", "--chdir", "-S", "-C")) for a in args):
        return opaque_unwrap("`env` that splits strings or changes directory")
    cleaned = [a for a in args if a.text != "-"]
    scanned = skip_options(cleaned, ENV)
    if scanned is None:
        return unknown_options("env")
    rest = cleaned[scanned[0] :]
    assignments: list[Word] = []
    while rest and "=" in rest[0].text and not rest[0].text.startswith("="):  # env takes any NAME=VALUE
        assignments.append(rest[0])
        rest = rest[1:]
    return argv_unwrap(rest, assignments=assignments) if rest else None


def unwrap_xargs(args: list[Word]) -> Unwrap | None:
    replace: str | None = None
    cleaned: list[Word] = []
    for arg in args:
        text = arg.text
        if text.startswith("-i") and not text.startswith("--"):  # -i[R]: replace mode
            replace = text[2:] or "{}"
            continue
        if text.startswith(("-e", "-l")) and not text.startswith("--") and len(text) > 2:
            continue  # -eEOF / -lN with attached values
        if text in ("-e", "-l"):
            continue
        cleaned.append(arg)
    scanned = skip_options(cleaned, XARGS)
    if scanned is None:
        return unknown_options("xargs")
    start, seen = scanned
    for option, value in seen:
        if option in ("-a", "--arg-file"):
            return opaque_unwrap("`xargs -a` reads its arguments from a file")
        if option in ("-I", "--replace"):
            replace = (value.text if value is not None else "") or "{}"
    inner = cleaned[start:] or [Word("echo")]
    words = [w.replaced(replace, SENTINEL) for w in inner] if replace else [*inner, Word(SENTINEL)]
    return argv_unwrap(words)


def unwrap_time(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, TIME)
    if scanned is None:
        return unknown_options("time")
    start, seen = scanned
    for option, value in seen:
        if option in ("-o", "--output") and value is not None:
            return argv_unwrap(args[start:], writes=[(value, True)]) if args[start:] else None
    rest = args[start:]
    return argv_unwrap(rest) if rest else None


def unwrap_ionice(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, IONICE)
    if scanned is None:
        return unknown_options("ionice")
    start, seen = scanned
    if any(name in ("-p", "-P", "-u", "--pid", "--pgid", "--uid") for name, _ in seen):
        return None  # changes other processes
    rest = args[start:]
    return argv_unwrap(rest) if rest else None


def unwrap_flock(args: list[Word]) -> Unwrap | None:
    """``flock [options] FILE CMD...`` / ``flock [options] FILE -c STRING`` / ``flock FD``."""
    scanned = skip_options(args, FLOCK)
    if scanned is None:
        return unknown_options("flock")
    rest = args[scanned[0] :]
    if len(rest) < 2:
        return None  # `flock FD`: locks an open descriptor, runs nothing
    lock = (rest[0], False)  # created when missing: edit deny rules hold, no allow needed
    if rest[1].text in ("-c", "--command"):
        if len(rest) < 3:
            return opaque_unwrap("`flock -c` without a command string")
        return script_unwrap(rest[2], "`flock -c`", writes=[lock])
    return argv_unwrap(rest[1:], writes=[lock])


def applet(what: str) -> Handler:
    """``busybox APPLET ARGS`` / ``toybox APPLET ARGS``: runs the applet."""

    def handler(args: list[Word]) -> Unwrap | None:
        if not args or args[0].text.startswith("-"):
            return None  # --list, --install, --help
        if args[0].dynamic:
            return opaque_unwrap(f"`{what}` running an applet whose name is computed at run time")
        return argv_unwrap(args)

    return handler




def unwrap_jobs(args: list[Word]) -> Unwrap | None:
    """``jobs -x CMD [ARGS]`` runs CMD (job specs in it replaced by process group ids):
    harmless, runs CMD; ``jobs`` listing jobs runs nothing."""
    if not args:
        return None
    if args[0].dynamic:
        return opaque_unwrap("`jobs` with options computed at run time")
    if args[0].text == "-x":
        return argv_unwrap(args[1:]) if len(args) > 1 else None
    if any(w.dynamic or (w.text.startswith("-") and "x" in w.text) for w in args):
        return unknown_options("jobs")
    return None
