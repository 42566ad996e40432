"""How commands that run other commands run them: wrapper grammars, and command-name tables.

:data:`WRAPPERS` maps a command name to a handler reading its arguments (the words after
the name) and returning an :class:`Unwrap` saying what it runs, or ``None`` when this
invocation runs nothing else (``command -v rm``, ``ionice -p 42``, ``bash script.sh``):

* ``argv`` - the ``inners`` are commands run as words (``nice -n 5 CMD``, ``busybox CMD``);
* ``script`` - ``script`` is shell text run by a shell (``bash -c``, ``su -c``, ``eval``,
  ``script -c``, ``flock -c``, ``trap``, ``parallel``);
* ``stdin`` - a shell reads its commands from standard input (``bash``, ``bash -s``,
  ``. /dev/stdin``, ``sudo -i``): the caller decides with what the input is;
* ``opaque`` - the wrapper's arguments cannot be read (an option outside the grammar, a
  command string computed at run time): never allowed automatically.

``guarded`` wrappers (``sudo``, ``doas``, ``su``, ``runuser``, ``pkexec``, ``chroot``,
``firejail``, ``find -exec``) change what the command may do, so the wrapper itself must be
allowed too; the others are harmless and only what they run is judged. ``writes`` are
files the wrapper itself writes (``script``'s typescript, ``flock``'s lock file).

:data:`LEAF_COMMANDS` never run an argument as a command; :data:`SUBCOMMAND_TOOLS` take a
subcommand as their first operand (``git rm`` is git's, not ``rm``). Every other command
the tables do not know gets its word suffixes checked against deny and ask rules, since
it may be a wrapper (``uv run rm x``).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from typing import Final, Literal

import attrs

from ._words import SENTINEL, Options, Word, scan_options, skip_options, texts

__all__ = [
    "LEAF_COMMANDS",
    "SHELLS",
    "STDIN_FILES",
    "SUBCOMMAND_TOOLS",
    "WRAPPERS",
    "Unwrap",
    "subcommand_index",
]

SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh"})
"""Shells whose ``-c``, ``-s`` and standard input the analysis understands."""

STDIN_FILES: Final = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""Files that are the command's own standard input."""

_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@attrs.frozen
class Unwrap:
    """What a wrapper runs (see the module docs).

    Attributes:
        kind: ``argv``, ``script``, ``stdin`` or ``opaque``.
        guarded: the wrapper must be allowed as well as what it runs.
        inners: for ``argv``, the commands run (each a sequence of words).
        assignments: environment assignments the wrapper adds (``env FOO=1 CMD``).
        script: for ``script``, the shell text.
        placeholder: a regular expression for the replacement strings of ``parallel`` in
            ``script``; what matches stands for arguments only known at run time.
        stdin_fallback: for ``stdin``, what to do when the input is not literal text:
            ``plain`` (judge the wrapper as written, as for ``bash < script.sh``) or
            ``opaque`` (never allow automatically); input from a pipe is always opaque.
        writes: files the wrapper writes, with whether an edit rule must allow the write
            (``False``: only edit deny and ask rules apply, for a lock file).
        reason: for ``opaque``, why.
    """

    kind: Literal["argv", "script", "stdin", "opaque"]
    guarded: bool = False
    inners: tuple[tuple[Word, ...], ...] = ()
    assignments: tuple[Word, ...] = ()
    script: str = ""
    placeholder: str | None = None
    stdin_fallback: Literal["plain", "opaque"] = "opaque"
    writes: tuple[tuple[Word, bool], ...] = ()
    reason: str = ""


Handler = Callable[[list[Word]], Unwrap | None]


def _opaque(reason: str) -> Unwrap:
    return Unwrap("opaque", reason=reason)


def _argv(*inners: Sequence[Word], guarded: bool = False, assignments: Sequence[Word] = (),
          writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    return Unwrap("argv", guarded, tuple(tuple(i) for i in inners if i), tuple(assignments), writes=tuple(writes))


def _script(word: Word, what: str, *, guarded: bool = False, writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    """Shell text given as one word; its literal output when it is a substitution of
    literal text (``bash -c "$(echo git status)"``)."""
    if word.dynamic:
        if word.output is None:
            return _opaque(f"{what} runs a command string computed at run time")
        return Unwrap("script", guarded, script=word.output, writes=tuple(writes))
    return Unwrap("script", guarded, script=word.text, writes=tuple(writes))


def _stdin(what: str, *, guarded: bool = False, fallback: Literal["plain", "opaque"] = "plain",
           writes: Sequence[tuple[Word, bool]] = ()) -> Unwrap:
    return Unwrap("stdin", guarded, stdin_fallback=fallback, writes=tuple(writes),
                  reason=f"{what} reads the commands it runs from standard input")


def _unknown_options(what: str) -> Unwrap:
    return _opaque(f"`{what}` with options the rules do not know")


# -- grammars ----------------------------------------------------------------------------

def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


_NICE = Options(valued="n", long_valued=_flags("--adjustment"), numeric=True)
_TIMEOUT = Options(flags="v", valued="sk", long_flags=_flags("--foreground", "--preserve-status", "--verbose"),
                   long_valued=_flags("--signal", "--kill-after"))
_STDBUF = Options(valued="ioe", long_valued=_flags("--input", "--output", "--error"))
_ENV = Options(flags="i0v", valued="u", long_flags=_flags("--ignore-environment", "--null", "--debug"),
               long_valued=_flags("--unset"))
_SUDO = Options(flags="EHnSbkKAPis", valued="ugCDhprtTU",
                long_flags=_flags("--preserve-env", "--login", "--shell", "--non-interactive", "--stdin",
                                  "--background", "--reset-timestamp", "--remove-timestamp", "--askpass",
                                  "--preserve-groups", "--set-home"),
                long_valued=_flags("--user", "--group", "--close-from", "--host", "--prompt", "--role",
                                   "--type", "--command-timeout", "--other-user"))
_DOAS = Options(flags="ns", valued="uC")
_XARGS = Options(flags="0rtpxo", valued="adEILnPs",
                 long_flags=_flags("--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit",
                                   "--open-tty"),
                 long_valued=_flags("--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                                    "--max-args", "--max-procs", "--max-chars", "--process-slot-var"))
_SHELL = Options(flags="abefhkmnprstuvxBCEHPTlic", valued="oO",
                 long_flags=_flags("--login", "--norc", "--noprofile", "--posix", "--restricted",
                                   "--noediting", "--verbose"),
                 long_valued=_flags("--rcfile", "--init-file"))
_WATCH = Options(flags="bcegtpwrx", valued="nd",
                 long_flags=_flags("--beep", "--color", "--errexit", "--chgexit", "--no-title", "--precise",
                                   "--no-wrap", "--exec"),
                 long_valued=_flags("--interval", "--differences"))
_TIME = Options(flags="pvaq", valued="fo", long_flags=_flags("--portability", "--verbose", "--append", "--quiet"),
                long_valued=_flags("--format", "--output"))
_SETSID = Options(flags="cfw", long_flags=_flags("--ctty", "--fork", "--wait"))
_EXEC = Options(flags="cl", valued="a")
_COMMAND = Options(flags="pvV")
_IONICE = Options(flags="t", valued="cnpPu", long_flags=_flags("--ignore"),
                  long_valued=_flags("--class", "--classdata", "--pid", "--pgid", "--uid"))
_TASKSET = Options(flags="acp", long_flags=_flags("--all-tasks", "--cpu-list", "--pid"))
_CHRT = Options(flags="abdfiomprRv", valued="TPD",
                long_flags=_flags("--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr",
                                  "--reset-on-fork", "--verbose", "--max", "--pid"),
                long_valued=_flags("--sched-runtime", "--sched-period", "--sched-deadline"))
_FLOCK = Options(flags="sxenoFu", valued="wE",
                 long_flags=_flags("--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close",
                                   "--no-fork", "--verbose"),
                 long_valued=_flags("--wait", "--timeout", "--conflict-exit-code"))
_UNBUFFER = Options(flags="p")
_SU = Options(flags="flmpP", valued="cCgGswu",
              long_flags=_flags("--fast", "--login", "--preserve-environment", "--pty"),
              long_valued=_flags("--command", "--session-command", "--group", "--supp-group", "--shell",
                                 "--whitelist-environment", "--user"))
_SCRIPT = Options(flags="aefq", valued="cEIOBTmo", optional="t",
                  long_flags=_flags("--append", "--return", "--flush", "--quiet"),
                  long_valued=_flags("--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing",
                                     "--logging-format", "--output-limit"),
                  long_optional=_flags("--timing"))
_PKEXEC = Options(long_flags=_flags("--disable-internal-agent", "--keep-cwd"), long_valued=_flags("--user"))
_CHROOT = Options(long_flags=_flags("--skip-chdir"), long_valued=_flags("--userspec", "--groups"))
_PARALLEL = Options(flags="0kqurtvXmx", valued="adEIjLnNPsS", optional="i",
                    long_flags=_flags("--null", "--keep-order", "--quote", "--ungroup", "--no-run-if-empty",
                                      "--verbose", "--xargs", "--group", "--line-buffer", "--tag", "--bar",
                                      "--progress", "--eta", "--will-cite", "--dry-run", "--shuf", "--pipe",
                                      "--halt-on-error"),
                    long_valued=_flags("--arg-file", "--delimiter", "--jobs", "--max-args", "--max-replace-args",
                                       "--replace", "--colsep", "--halt", "--timeout", "--retries", "--delay",
                                       "--tagstring", "--max-procs", "--sshlogin", "--block", "--env",
                                       "--joblog", "--results"))


# -- handlers ----------------------------------------------------------------------------

def _after_options(spec: Options, what: str) -> Handler:
    """``WRAPPER [options] CMD...``: harmless, runs CMD."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return _unknown_options(what)
        inner = args[scanned[0] :]
        return _argv(inner) if inner else None

    return handler


def _after_operand(spec: Options, what: str, *, no_command: tuple[str, ...] = ()) -> Handler:
    """``WRAPPER [options] OPERAND CMD...`` (``taskset MASK``, ``chrt PRIORITY``); options in
    ``no_command`` (``-p PID``) mean it runs nothing."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return _unknown_options(what)
        start, seen = scanned
        if any(name in no_command for name, _ in seen):
            return None
        rest = args[start:]
        if len(rest) < 2:
            return None
        if rest[0].dynamic:
            return _opaque(f"`{what}` with an operand computed at run time")
        return _argv(rest[1:])

    return handler


def _command_builtin(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, _COMMAND)
    if scanned is None:
        return _unknown_options("command")
    start, seen = scanned
    if any(opt in ("-v", "-V") for opt, _ in seen) or not args[start:]:
        return None  # only looks the name up
    return _argv(args[start:])


def _timeout(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, _TIMEOUT)
    if scanned is None:
        return _unknown_options("timeout")
    rest = args[scanned[0] :]
    return _argv(rest[1:]) if len(rest) >= 2 else None


def _env(args: list[Word]) -> Unwrap | None:
    if any(a.text in ("-S", "-C") or a.text.startswith(("--split-string", "--chdir", "-S", "-C")) for a in args):
        return _opaque("`env` that splits strings or changes directory")
    cleaned = [a for a in args if a.text != "-"]
    scanned = skip_options(cleaned, _ENV)
    if scanned is None:
        return _unknown_options("env")
    rest = cleaned[scanned[0] :]
    assignments: list[Word] = []
    while rest and "=" in rest[0].text and not rest[0].text.startswith("="):  # env takes any NAME=VALUE
        assignments.append(rest[0])
        rest = rest[1:]
    return _argv(rest, assignments=assignments) if rest else None


def _privileged(spec: Options, what: str) -> Handler:
    """``sudo``/``doas``: guarded; ``-s``/``-i`` without a command start a shell."""

    def handler(args: list[Word]) -> Unwrap | None:
        if what == "sudo" and any(a.text in ("-e", "--edit") for a in args):
            return _opaque("`sudo -e` edits files as another user")
        if any(a.text.startswith(("--chdir", "-D")) for a in args):
            return _opaque(f"`{what}` that changes directory")
        scanned = skip_options(args, spec)
        if scanned is None:
            return _unknown_options(what)
        start, seen = scanned
        inner = args[start:]
        if inner:
            return _argv(inner, guarded=True)
        if any(name in ("-s", "-i", "--shell", "--login") for name, _ in seen):
            return _stdin(f"`{what}` starting a shell", guarded=True)
        return None

    return handler


def _xargs(args: list[Word]) -> Unwrap | None:
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
    scanned = skip_options(cleaned, _XARGS)
    if scanned is None:
        return _unknown_options("xargs")
    start, seen = scanned
    for option, value in seen:
        if option in ("-I", "--replace"):
            replace = (value.text if value is not None else "") or "{}"
    inner = cleaned[start:] or [Word("echo")]
    words = [w.replaced(replace, SENTINEL) for w in inner] if replace else [*inner, Word(SENTINEL)]
    return _argv(words)


def _find(args: list[Word]) -> Unwrap | None:
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
                return _opaque("`find -exec` without its terminating `;` or `+`")
            inners.append(inner)
            i = j
        i += 1
    return _argv(*inners, guarded=True) if inners else None


def _shell(args: list[Word]) -> Unwrap | None:
    """``bash [options] [-c STRING | -s | FILE] [args]``."""
    script_mode = stdin_mode = False
    i = 0
    while i < len(args):
        text = args[i].text
        if args[i].dynamic:
            if _operand_value(args[i]) is not None:
                break
            return _opaque("a shell started with options computed at run time")
        if text in ("--", "-"):
            i += 1
            break
        if text.startswith("--"):
            if text in _SHELL.long_flags:
                i += 1
                continue
            if text in _SHELL.long_valued:
                i += 2
                continue
            return _opaque(f"a shell started with the option {text!r}")
        if text.startswith(("-", "+")) and len(text) > 1:
            letters = text[1:]
            if not all(ch in _SHELL.flags + _SHELL.valued for ch in letters):
                return _opaque(f"a shell started with the option {text!r}")
            script_mode = script_mode or "c" in letters
            stdin_mode = stdin_mode or (text[0] == "-" and "s" in letters)
            if letters[-1] in _SHELL.valued:
                i += 1
            i += 1
            continue
        break
    operands = args[i:]
    if script_mode:
        if not operands:
            return _opaque("`-c` without a command string")
        return _script(operands[0], "a shell")
    if stdin_mode or not operands or (operands[0].text in STDIN_FILES and not operands[0].dynamic):
        return _stdin("a shell")
    first = operands[0]
    if first.dynamic:
        if first.raw.startswith("<(") and first.output is not None:  # bash <(echo ...)
            return Unwrap("script", script=first.output)
        return _opaque("a shell running a script whose name or text is computed at run time")
    return None  # runs a script file: judged as written


def _operand_value(word: Word) -> str | None:
    """The value of a computed word that cannot be an option: a process substitution (a
    file name) or a quoted substitution of fixed text not starting with ``-``/``+``."""
    if word.raw.startswith("<("):
        return word.raw
    if word.output is not None and not word.output.startswith(("-", "+")):
        return word.output
    return None


def _eval(args: list[Word]) -> Unwrap | None:
    if not args:
        return None
    if len(args) == 1 and args[0].dynamic:
        return _script(args[0], "`eval`")
    if any(a.dynamic for a in args):
        return _opaque("`eval` of text computed at run time")
    return Unwrap("script", script=" ".join(texts(args)))


def _watch(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, _WATCH)
    if scanned is None:
        return _unknown_options("watch")
    start, seen = scanned
    rest = args[start:]
    if not rest:
        return None
    if any(opt in ("-x", "--exec") for opt, _ in seen):
        return _argv(rest)
    if any(a.dynamic for a in rest):
        return _opaque("`watch` of text computed at run time")
    return Unwrap("script", script=" ".join(texts(rest)))


def _time(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, _TIME)
    if scanned is None:
        return _unknown_options("time")
    start, seen = scanned
    for option, value in seen:
        if option in ("-o", "--output") and value is not None:
            return _argv(args[start:], writes=[(value, True)]) if args[start:] else None
    rest = args[start:]
    return _argv(rest) if rest else None


def _ionice(args: list[Word]) -> Unwrap | None:
    scanned = skip_options(args, _IONICE)
    if scanned is None:
        return _unknown_options("ionice")
    start, seen = scanned
    if any(name in ("-p", "-P", "-u", "--pid", "--pgid", "--uid") for name, _ in seen):
        return None  # changes other processes
    rest = args[start:]
    return _argv(rest) if rest else None


def _flock(args: list[Word]) -> Unwrap | None:
    """``flock [options] FILE CMD...`` / ``flock [options] FILE -c STRING`` / ``flock FD``."""
    scanned = skip_options(args, _FLOCK)
    if scanned is None:
        return _unknown_options("flock")
    rest = args[scanned[0] :]
    if len(rest) < 2:
        return None  # `flock FD`: locks an open descriptor, runs nothing
    lock = (rest[0], False)  # created when missing: edit deny rules hold, no allow needed
    if rest[1].text in ("-c", "--command"):
        if len(rest) < 3:
            return _opaque("`flock -c` without a command string")
        return _script(rest[2], "`flock -c`", writes=[lock])
    return _argv(rest[1:], writes=[lock])


def _applet(what: str) -> Handler:
    """``busybox APPLET ARGS`` / ``toybox APPLET ARGS``: runs the applet."""

    def handler(args: list[Word]) -> Unwrap | None:
        if not args or args[0].text.startswith("-"):
            return None  # --list, --install, --help
        if args[0].dynamic:
            return _opaque(f"`{what}` running an applet whose name is computed at run time")
        return _argv(args)

    return handler


def _su(args: list[Word], *, what: str = "su") -> Unwrap | None:
    """``su [options] [-] [USER [ARGS]]`` (options anywhere, as GNU getopt reads them);
    ``runuser -u USER [--] CMD...`` runs CMD directly."""
    cleaned = [a for a in args if a.text != "-"]  # `-`: a login shell
    scanned = scan_options(cleaned, _SU)
    if scanned is None:
        return _unknown_options(what)
    shell = scanned.value("-s", "--shell")
    if shell is not None and (shell.dynamic or posixpath.basename(shell.text) not in SHELLS):
        return _opaque(f"`{what}` running a program other than a known shell")
    if what == "runuser" and scanned.has("-u", "--user"):
        if not scanned.operands:
            return _stdin(f"`{what}`", guarded=True)
        return _argv(scanned.operands, guarded=True)
    command = scanned.value("-c", "--command", "-C", "--session-command")
    if command is not None:
        return _script(command, f"`{what} -c`", guarded=True)
    shell_args = list(scanned.operands[1:])
    if shell_args:  # passed to the user's shell: `su root -- -c 'CMD'`
        outcome = _shell(shell_args)
        return None if outcome is None else attrs.evolve(outcome, guarded=True)
    return _stdin(f"`{what}`", guarded=True)


def _runuser(args: list[Word]) -> Unwrap | None:
    return _su(args, what="runuser")


def _script_command(args: list[Word]) -> Unwrap | None:
    """``script [options] [FILE]``: runs ``-c STRING`` (or a shell) and writes FILE."""
    scanned = scan_options(args, _SCRIPT)
    if scanned is None:
        return _unknown_options("script")
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
        return _script(command, "`script -c`", writes=writes)
    return _stdin("`script`", writes=writes)


_FIREJAIL_OPTION: Final = re.compile(r"--[a-z0-9][a-z0-9-]*(?:=.*)?", re.DOTALL)


def _firejail(args: list[Word]) -> Unwrap | None:
    """``firejail [--option[=value]]... CMD...``: guarded."""
    writes: list[tuple[Word, bool]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.dynamic:
            return _opaque("`firejail` with options computed at run time")
        if word.text == "--":
            i += 1
            break
        if not word.text.startswith("-"):
            break
        if _FIREJAIL_OPTION.fullmatch(word.text) is None:
            return _unknown_options("firejail")
        name, _, value = word.text.partition("=")
        if name in ("--output", "--output-stderr") and value:
            writes.append((Word(value), True))
        i += 1
    inner = args[i:]
    return _argv(inner, guarded=True, writes=writes) if inner else None


def _guarded_after(spec: Options, what: str, *, operands_before: int = 0) -> Handler:
    """``pkexec [options] CMD...``, ``chroot [options] NEWROOT [CMD...]``: guarded."""

    def handler(args: list[Word]) -> Unwrap | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return _unknown_options(what)
        rest = args[scanned[0] :]
        if len(rest) < operands_before:
            return None
        if any(w.dynamic for w in rest[:operands_before]):
            return _opaque(f"`{what}` with an operand computed at run time")
        inner = rest[operands_before:]
        if inner:
            return _argv(inner, guarded=True)
        return _stdin(f"`{what}`", guarded=True) if operands_before else None

    return handler


_PARALLEL_SEPARATORS: Final = frozenset({":::", "::::", ":::+", "::::+"})
_PARALLEL_REPLACEMENT: Final = r"\{[^{}\s=]*\}"


def _parallel(args: list[Word]) -> Unwrap | None:
    """GNU ``parallel [options] CMD... ::: ARGS``: CMD is shell text, with its replacement
    strings (``{}``, ``{.}``, ``-I STR``...) or appended arguments known only at run time."""
    scanned = skip_options(args, _PARALLEL)
    if scanned is None:
        return _unknown_options("parallel")
    start, seen = scanned
    writes = [(value, True) for name, value in seen if name in ("--joblog", "--results") and value is not None]
    command: list[Word] = []
    for word in args[start:]:
        if word.text in _PARALLEL_SEPARATORS:
            break
        command.append(word)
    if not command:
        return _opaque("`parallel` runs commands read from its input")
    if any(w.dynamic for w in command):
        return _opaque("`parallel` of a command computed at run time")
    replace: str | None = None
    for name, value in seen:
        if name in ("-I", "--replace", "-i"):
            replace = value.text if value is not None else "{}"
    words = texts(command)
    text = shlex.join(words) if any(name in ("-q", "--quote") for name, _ in seen) else " ".join(words)
    if "{=" in text:
        return _opaque("`parallel` with a Perl replacement expression")
    placeholder = re.escape(replace) if replace else _PARALLEL_REPLACEMENT
    if re.search(placeholder, text) is None:
        text += " {}" if not replace else f" {replace}"
    return Unwrap("script", script=text, placeholder=placeholder, writes=tuple(writes))


def _trap(args: list[Word]) -> Unwrap | None:
    """``trap [--] ACTION SIGNAL...``: ACTION is shell text run later."""
    rest = args[1:] if args and args[0].text == "--" else args
    if len(rest) < 2 or rest[0].text.startswith("-") or not rest[0].text:
        return None  # lists, prints or resets traps
    return _script(rest[0], "`trap`")


def _alias(args: list[Word]) -> Unwrap | None:
    """``alias NAME=VALUE...``: each VALUE is shell text run where NAME is used."""
    values: list[str] = []
    for arg in args:
        _, eq, value = arg.text.partition("=")
        if not eq or arg.text.startswith("-"):
            continue
        if arg.dynamic:
            return _opaque("`alias` of text computed at run time")
        if value.strip():
            values.append(value)
    return Unwrap("script", script="\n".join(values)) if values else None


def _source(args: list[Word]) -> Unwrap | None:
    """``. FILE`` / ``source FILE``: standard input and substitutions are read as scripts."""
    rest = args[1:] if args and args[0].text == "--" else args
    if not rest:
        return None
    target = rest[0]
    if target.dynamic:
        if target.output is not None:  # . <(echo ...)
            return Unwrap("script", script=target.output)
        return _opaque("`source` of a file or text computed at run time")
    if target.text in STDIN_FILES:
        return _stdin("`source` of standard input", fallback="opaque")
    return None  # a script file: judged as written


WRAPPERS: Final[dict[str, Handler]] = {
    "command": _command_builtin,
    "builtin": _after_options(Options(), "builtin"),
    "exec": _after_options(_EXEC, "exec"),
    "nohup": _after_options(Options(), "nohup"),
    "setsid": _after_options(_SETSID, "setsid"),
    "nice": _after_options(_NICE, "nice"),
    "ionice": _ionice,
    "taskset": _after_operand(_TASKSET, "taskset", no_command=("-p", "--pid")),
    "chrt": _after_operand(_CHRT, "chrt", no_command=("-p", "--pid", "-m", "--max")),
    "timeout": _timeout,
    "stdbuf": _after_options(_STDBUF, "stdbuf"),
    "unbuffer": _after_options(_UNBUFFER, "unbuffer"),
    "time": _time,
    "env": _env,
    "flock": _flock,
    "busybox": _applet("busybox"),
    "toybox": _applet("toybox"),
    "sudo": _privileged(_SUDO, "sudo"),
    "doas": _privileged(_DOAS, "doas"),
    "su": _su,
    "runuser": _runuser,
    "pkexec": _guarded_after(_PKEXEC, "pkexec"),
    "chroot": _guarded_after(_CHROOT, "chroot", operands_before=1),
    "firejail": _firejail,
    "script": _script_command,
    "xargs": _xargs,
    "parallel": _parallel,
    "find": _find,
    "eval": _eval,
    "watch": _watch,
    "trap": _trap,
    "alias": _alias,
    ".": _source,
    "source": _source,
    **{name: _shell for name in SHELLS},
}
"""Wrapper handlers by command name (the basename of the command word)."""

LEAF_COMMANDS: Final = frozenset({
    ":", "[", "apropos", "basename", "cat", "chgrp", "chmod", "chown", "cmp", "column", "comm", "cp",
    "cut", "date", "declare", "df", "diff", "dirname", "du", "echo", "egrep", "export", "false", "fgrep", "file",
    "fold", "grep", "hash", "head", "help", "hexdump", "id", "info", "jq", "join", "kill", "less", "ln", "local",
    "ls", "man", "md5sum", "mkdir", "more", "mv", "nl", "od", "paste", "pgrep", "printenv", "printf", "ps", "pwd",
    "read", "readlink", "realpath", "rev", "rg", "rm", "rmdir", "seq", "sha1sum", "sha256sum", "sha512sum", "sleep",
    "sort", "stat", "strings", "tac", "tail", "tee", "test", "touch", "tr", "tree", "true", "type", "typeset",
    "uname", "uniq", "unset", "wc", "whatis", "whereis", "which", "whoami", "xxd",
})
"""Commands that never run one of their arguments as a command: their arguments are not
checked as possible commands (``echo rm x`` is not ``rm x``)."""

SUBCOMMAND_TOOLS: Final[dict[str, frozenset[str]]] = {
    "git": _flags("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"),
    "docker": _flags("-H", "--host", "--context", "-c", "--config", "-l", "--log-level"),
    "podman": _flags("--url", "--connection", "-c", "--log-level", "--root", "--runroot"),
    "kubectl": _flags("-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user"),
    "helm": _flags("-n", "--namespace", "--kube-context", "--kubeconfig"),
    "npm": _flags("--prefix", "-w", "--workspace"),
    "pnpm": _flags("-C", "--dir", "--filter", "-F"),
    "yarn": _flags("--cwd",),
    "bun": frozenset(), "deno": frozenset(), "cargo": _flags("-Z", "--config", "-C"),
    "go": frozenset(), "rustup": frozenset(), "pip": frozenset(), "pip3": frozenset(), "uv": _flags("--directory"),
    "poetry": _flags("-C", "--directory"), "pipenv": frozenset(), "conda": frozenset(), "mamba": frozenset(),
    "gem": frozenset(), "bundle": frozenset(), "composer": _flags("-d", "--working-dir"), "dotnet": frozenset(),
    "gh": _flags("-R", "--repo"), "glab": _flags("-R", "--repo"), "hg": _flags("-R", "--repository", "--cwd"),
    "svn": frozenset(), "brew": frozenset(), "apt": frozenset(), "apt-get": frozenset(), "dnf": frozenset(),
    "yum": frozenset(), "apk": frozenset(), "pacman": frozenset(), "snap": frozenset(), "flatpak": frozenset(),
    "systemctl": frozenset(), "terraform": frozenset(), "aws": frozenset(), "gcloud": frozenset(), "az": frozenset(),
}
"""Tools whose first operand is a subcommand (``git rm``, ``docker rm``, ``npm rm``), with
their global options that take a value (``git -C DIR rm``)."""


def subcommand_index(name: str, args: Sequence[str]) -> int | None:
    """The index in ``args`` of the subcommand of a :data:`SUBCOMMAND_TOOLS` tool, or ``None``."""
    valued = SUBCOMMAND_TOOLS.get(name)
    if valued is None:
        return None
    i = 0
    while i < len(args):
        text = args[i]
        if text == "--":
            return None
        if not text.startswith("-"):
            return i
        if text in valued:
            i += 1
        i += 1
    return None
