"""Shell builtins that look inert but can run code or change what later commands run.

Bash evaluates array subscripts arithmetically wherever a variable *name* is expected, and
arithmetic evaluation runs command substitutions: ``printf -v 'a[$(rm x)]' y``,
``read 'a[$(rm x)]'``, ``test -v 'a[$(rm x)]'``, ``declare 'a[$(rm x)]=1'``,
``unset 'a[$(rm x)]'`` and ``let 'a[$(rm x)]'`` all run ``rm x``, though the text is
quoted. ``declare -i``/``-n`` make later plain assignments arithmetic or indirect,
``hash -p /bin/rm ls`` makes ``ls`` run ``rm``, ``enable`` loads or disables builtins, and
``shopt`` glob options (``dotglob``, ``extglob``...) change what a wildcard names.

Each handler here returns the reason the invocation cannot be judged, or ``None`` when it
is inert. :data:`EVALUATING_BUILTINS` maps a command name to its handler.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from ._shell_options import SET_LETTERS, option_name_risk, set_letters_risk, shopt_name_risk
from ._words import Options, Word, skip_options

__all__ = ["CODE_ENV", "CODE_ENV_EFFECT", "EVALUATING_BUILTINS", "code_env"]

CODE_ENV: Final = frozenset({
    "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
    "PS4", "PROMPT_COMMAND", "IFS", "GLOBIGNORE", "CDPATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
    "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "GIT_SSH_COMMAND", "GIT_SSH",
    "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
    "GIT_EDITOR", "GIT_PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "LESSOPEN",
    "LESSCLOSE", "MANPAGER", "BROWSER", "TERMINFO", "HOSTALIASES", "LOCPATH", "GCONV_PATH", "GIT_EXTERNAL_DIFF",
    # where `~`, `cd`, `~+` and temporary files go, and the configuration programs read from there
    "HOME", "PWD", "OLDPWD", "DIRSTACK", "TMPDIR", "XDG_CONFIG_HOME", "HISTFILE", "EXECIGNORE", "SHELL",
    # git's repository, templates (hooks), proxy and sequence editor
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_TEMPLATE_DIR", "GIT_PROXY_COMMAND", "GIT_SEQUENCE_EDITOR",
    # options or startup commands programs read from the environment
    "TAR_OPTIONS", "RIPGREP_CONFIG_PATH", "VIMINIT", "EXINIT", "MYVIMRC", "MANOPT", "LESS", "LESSKEY",
    "LESSKEYIN", "MAKEFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "PARALLEL",
    "ZIPOPT", "UNZIP", "GZIP", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "RUSTC_WRAPPER",
    "OPENSSL_CONF", "SUDO_ASKPASS", "SUDO_EDITOR", "FCEDIT", "PYTHONBREAKPOINT",
    # posix mode: aliases expanded in a non-interactive shell
    "POSIXLY_CORRECT",
})
"""Variables that make a command run code its command line does not show (a preloaded
library, another ``PATH``, a startup file, an editor or pager command, options read from
the environment...) or that move what the line names (``HOME`` moves ``~``, ``PWD`` moves
``~+``, ``TMPDIR`` where temporary files are created)."""


def code_env(name: str) -> bool:
    """True for a variable in :data:`CODE_ENV`, any of bash's own (``BASH_*``: exported
    functions ``BASH_FUNC_*``, the command hash ``BASH_CMDS``, the aliases ``BASH_ALIASES``,
    ``BASH_XTRACEFD``...) or any loader variable (``LD_*``, ``DYLD_*``)."""
    return name in CODE_ENV or name.startswith(("BASH_", "LD_", "DYLD_", "GIT_CONFIG_", "GIT_TRACE"))


Handler = Callable[[Sequence[Word]], str | None]

_SUBSCRIPT: Final = "evaluates an array subscript in a variable name, and arithmetic evaluation runs commands"


def _bad_name(word: Word) -> bool:
    """A variable name that may evaluate code: a subscript or text computed at run time."""
    name = word.text.partition("=")[0]
    raw = word.raw.partition("=")[0] if word.raw else name
    return "[" in name or (word.dynamic and ("$" in raw or "`" in raw)) or not name


CODE_ENV_EFFECT: Final = "makes later commands run code or name files their command lines do not show"
"""Why assigning a :func:`code_env` variable (by any means: ``read``, ``for``, ``${V:=x}``,
a bare assignment) is asked about; the reasons of each such place end with it."""
_ASSIGNS_CODE: Final = f"assigns a variable that {CODE_ENV_EFFECT}"


def _names_after(spec: Options, what: str, *, skip: int = 0, callbacks: str = "") -> Handler:
    """``CMD [options] NAME...``: every operand (after ``skip`` leading ones) is a name
    assigned; the values of the options in ``callbacks`` (``mapfile -C``) are evaluated as code."""

    def handler(args: Sequence[Word]) -> str | None:
        scanned = skip_options(args, spec)
        if scanned is None:
            return f"`{what}` with options the rules do not know (some evaluate variable names)"
        start, seen = scanned
        for option, value in seen:
            if option[1:] in callbacks:
                return f"`{what} {option}` evaluates its value as a command"
            if option in ("-v", "-p", "-a") and value is not None:
                if _bad_name(value):
                    return f"`{what} {option}` {_SUBSCRIPT}"
                if code_env(value.text):
                    return f"`{what} {option} {value.text}` {_ASSIGNS_CODE}"
        for word in args[start + skip :]:
            if _bad_name(word):
                return f"`{what}` {_SUBSCRIPT}"
            if code_env(word.text):
                return f"`{what} {word.text}` {_ASSIGNS_CODE}"
        return None

    return handler


def _declare(what: str) -> Handler:
    def handler(args: Sequence[Word]) -> str | None:
        for word in args:
            text = word.text
            if word.dynamic and text.startswith(("-", "+")):
                return f"`{what}` with options computed at run time"
            if text.startswith(("-", "+")) and "=" not in text:
                if set(text[1:]) & set("in"):
                    return (f"`{what} {text}` makes later assignments evaluate arithmetic or follow a "
                            "name, which can run commands")
                continue
            if _bad_name(word):
                return f"`{what}` {_SUBSCRIPT}"
            if not text.startswith(("-", "+")) and code_env(text.partition("=")[0]):
                return (f"`{what} {text.partition('=')[0]}` sets a variable that makes later commands run code their "
                        "command lines do not show")
        return None

    return handler


def _compgen(args: Sequence[Word]) -> str | None:
    """``compgen -W WORDS`` expands WORDS (command substitutions run), ``-C CMD`` runs CMD
    and ``-F FUNC`` calls a function."""
    for index, word in enumerate(args):
        text = word.text
        if word.dynamic:
            return "`compgen` with words computed at run time (its word list is expanded again)"
        if not text.startswith("-") or text.startswith("--"):
            continue
        for at, letter in enumerate(text[1:], 1):
            if letter in "CF":
                return f"`compgen -{letter}` runs a command or function to generate the completions"
            if letter == "W":
                value = text[at + 1 :] or (args[index + 1].text if index + 1 < len(args) else "")
                if "$" in value or "`" in value:
                    return "`compgen -W` expands its word list, and the expansion runs command substitutions"
                break
            if letter in "oAGXPS":
                break  # the rest of the word (or the next word) is the option's value
    return None


def _let(args: Sequence[Word]) -> str | None:
    return "`let` evaluates arithmetic, which runs commands hidden in array subscripts of variable values"


def _test(args: Sequence[Word]) -> str | None:
    for index, word in enumerate(args[:-1]):
        if word.text in ("-v", "-R") and _bad_name(args[index + 1]):
            return f"`test {word.text}` {_SUBSCRIPT}"
    return None


def _fc(args: Sequence[Word]) -> str | None:
    """``fc`` runs commands from the history (``history -s TEXT`` puts any text there), or an
    editor on them; only listing (``fc -l``) is inert."""
    flags = "".join(w.text[1:] for w in args if w.text.startswith("-") and not w.dynamic)
    if "l" in flags and not set(flags) & set("es") and not any(w.dynamic for w in args):
        return None
    return "`fc` runs commands from the history (which `history -s` fills with any text) or an editor"


def _hash(args: Sequence[Word]) -> str | None:
    if any(w.text.startswith("-") and "p" in w.text[1:] for w in args):
        return "`hash -p` makes a command name run another program"
    return None


def _enable(args: Sequence[Word]) -> str | None:
    if all(w.text in ("-p", "-a", "-s") for w in args):
        return None
    return "`enable` loads or disables shell builtins, changing what later commands run"


def _shopt(args: Sequence[Word]) -> str | None:
    """``shopt -s|-u NAME...`` of a name :mod:`~harness_rules._shell_options` does not know
    to be inert (``shopt -so NAME``: a ``set -o`` name); printing (``-p``, ``-q``, none) is inert."""
    flags = "".join(w.text[1:] for w in args if w.text.startswith("-"))
    if any(w.dynamic for w in args):
        return "`shopt` with words computed at run time"
    if not set(flags) & set("su"):
        return None
    check = option_name_risk if "o" in flags else shopt_name_risk
    for word in args:
        if not word.text.startswith("-"):
            why = check(word.text)
            if why is not None:
                return f"`shopt`: {why}"
    return None


def _set(args: Sequence[Word]) -> str | None:
    """``set`` of a flag or ``-o`` name not known to be inert (``set -k``, ``set -o posix``,
    ``set -a``, ``set -P``); the words after ``--``/``-`` are positional parameters."""
    names = False
    for word in args:
        text = word.text
        if word.dynamic and (names or text.startswith(("-", "+"))):
            return "`set` with options computed at run time"
        if names:
            names = False
            why = option_name_risk(text)
            if why is not None:
                return f"`set`: {why}"
            continue
        if text in ("--", "-"):
            break
        if len(text) > 1 and text[0] in "-+":
            letters = text[1:]
            why = set_letters_risk(letters.replace("o", ""))
            if why is not None or not all(letter in SET_LETTERS or letter == "o" for letter in letters):
                return f"`set`: {why or 'an option the rules do not know'}"
            names = "o" in letters
            continue
        break
    return None


_READ = Options(flags="ers", valued="adinNptu")
_MAPFILE = Options(flags="t", valued="dnOsuCc")
_PRINTF = Options(valued="v")
_WAIT = Options(flags="nf", valued="p")
_UNSET = Options(flags="fvn")

EVALUATING_BUILTINS: Final[dict[str, Handler]] = {
    "printf": _names_after(_PRINTF, "printf", skip=10**6),
    "read": _names_after(_READ, "read"),
    "mapfile": _names_after(_MAPFILE, "mapfile", callbacks="C"),
    "readarray": _names_after(_MAPFILE, "readarray", callbacks="C"),
    "getopts": _names_after(Options(), "getopts", skip=1),
    "wait": _names_after(_WAIT, "wait", skip=10**6),
    "unset": _names_after(_UNSET, "unset"),
    "declare": _declare("declare"),
    "typeset": _declare("typeset"),
    "local": _declare("local"),
    "readonly": _declare("readonly"),
    "export": _declare("export"),
    "compgen": _compgen,
    "let": _let,
    "test": _test,
    "[": _test,
    "hash": _hash,
    "fc": _fc,
    "enable": _enable,
    "shopt": _shopt,
    "set": _set,
}
"""Builtins whose arguments may run code, by name (see the module docs)."""
