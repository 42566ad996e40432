"""Options and scripts through which a program the rules otherwise read as inert runs a
command or reads file names from somewhere the rules cannot see.

:func:`option_problem` names, for ``sed``, ``tar``, ``rg``, ``git``, ``sort``/``wc``/``du``
and ``zip``, why a command with such an option cannot be judged as written: ``sed``'s
``e``, ``r``/``R``, ``w``/``W`` script commands and the ``e``/``w`` flags of ``s``
(:func:`sed_problem`), ``tar --to-command``/``--checkpoint-action``/``-I`` and names from
``-T``, ``rg --pre``, ``git -c`` with a key that may run a command, ``--files0-from`` and
``zip -@``. The walker then records the command as opaque (asked about); the fast paths
decline it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._awk_risks import AWKS, awk_problem
from ._git_risks import git_problem

__all__ = ["option_problem", "sed_problem"]

_TAR_LONG: Final = ("--checkpoint-action", "--use-compress-program", "--to-command", "--info-script",
                    "--new-volume-script", "--rsh-command", "--rmt-command", "--files-from")
VIMS: Final = frozenset({"vim", "vi", "ex", "view", "vimdiff", "rvim", "rview", "nvim", "gvim", "evim", "vimx", "nvi"})
_SSH_KEYS: Final = ("proxycommand", "localcommand", "knownhostscommand", "match", "pkcs11provider",
                    "securitykeyprovider", "include")
"""``ssh -o`` keys whose value is a command ssh runs locally or code it loads."""
_GDB: Final = frozenset({"ex", "iex", "x", "ix", "command", "eval-command", "init-command", "init-eval-command"})


def _abbreviates(text: str, risky: Sequence[str], exact: Sequence[str] = ()) -> bool:
    """Whether the word ``text`` is one of the long options ``risky`` or an abbreviation of
    one (GNU getopt takes any unambiguous prefix: ``tar --checkpoint-ac=exec=CMD``), and
    not one of the full options ``exact`` (``--checkpoint``, a prefix of
    ``--checkpoint-action``)."""
    if not text.startswith("--"):
        return False
    option = text.partition("=")[0]
    if option in exact:
        return False
    return any(option.startswith(full) or (len(option) > 2 and full.startswith(option)) for full in risky)


def option_problem(name: str, args: Sequence[str]) -> str | None:
    """Why the command ``name args`` (texts) cannot be judged as written, or ``None``."""
    if name == "sed":
        return sed_problem(args)
    if name in AWKS:
        return awk_problem(args)
    if name == "git":
        return git_problem(args)
    if name in VIMS:
        return _vim_problem(name, args)
    if name in ("ssh", "scp", "sftp", "slogin", "rsync", "strace", "ltrace", "gdb", "man"):
        return _runner_problem(name, args)
    if name == "tar":
        for index, text in enumerate(args):
            if text.startswith(_TAR_LONG) or _abbreviates(text, _TAR_LONG, ("--checkpoint", "--file")):
                return f"`tar {text.partition('=')[0]}` runs a command or reads file names the rules cannot see"
            letters = text[1:] if text.startswith("-") and not text.startswith("--") else (text if index == 0 else "")
            if any(ch in letters for ch in "IFT"):
                return "`tar -I`/`-F`/`-T` runs a command or reads file names the rules cannot see"
        return None
    if name == "rg" and any(t == "--pre" or t.startswith("--pre=") for t in args):
        return "`rg --pre` runs a program on every file it searches"
    if name in ("sort", "wc", "du") and any(_abbreviates(t, ("--files0-from",)) for t in args):
        return f"`{name} --files0-from` reads the names of the files it opens from elsewhere"
    if name == "split" and any(_abbreviates(t, ("--filter",)) for t in args):
        return "`split --filter` runs a shell command on every piece"
    if name == "install" and any(_abbreviates(t, ("--strip-program",), ("--strip",)) for t in args):
        return "`install --strip-program` runs the program it names on the installed file"
    if name == "sort" and any(_abbreviates(t, ("--compress-program",)) for t in args):
        return "`sort --compress-program` runs a program (`bash` runs the lines sorted) on its temporary files"
    if name == "zip" and any(t.startswith("-") and not t.startswith("--") and "@" in t for t in args):
        return "`zip -@` reads the names of the files it archives from its input"
    return None


def _vim_problem(name: str, args: Sequence[str]) -> str | None:
    """vim runs ex commands (``-c``, ``+CMD``, ``--cmd``), scripts (``-S``, ``-u``, ``-s``)
    and sends keys to a server (``--remote-send``); ``:!`` runs a shell, ``:r``/``:w`` open files."""
    ex_mode = name == "ex" or any(t[:1] == "-" and t[1:2] != "-" and set(t[1:]) & set("eE") for t in args)
    for text in args:
        if text == "--":
            return None
        if text.startswith("+") and not (text[1:].isdigit() or text[1:2] in ("", "/")):
            return f"`{name} +CMD` runs an editor command (`:!` runs a shell command)"
        if text.startswith(("--cmd", "--remote-send", "--remote-expr")):
            return f"`{name} {text.partition('=')[0]}` runs editor commands"
        if text[:1] == "-" and text[1:2] != "-":
            letters = set(text[1:])
            if letters & set("cSuUwW") or ("s" in letters and not ex_mode):
                return f"`{name} {text}` runs editor commands or a script (`:!` runs a shell command)"
    return None


def _runner_problem(name: str, args: Sequence[str]) -> str | None:
    """Options through which ``ssh``/``scp``/``sftp`` (``-o ProxyCommand``, ``-F``, ``-S``,
    ``-D``, ``-I``), ``rsync`` (``-e`` other than plain ssh), ``strace``/``ltrace`` (``-o
    '|CMD'``), ``gdb`` (``-ex``, ``-x``) and ``man`` (``-P``, ``-H``, ``-C``) run a command."""
    for index, text in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        if name in ("ssh", "scp", "sftp", "slogin"):
            if text.startswith("-o"):
                option = (text[2:] or value).lower().replace("=", " ").split(" ", 1)[0]
                if option.startswith(_SSH_KEYS):
                    return f"`{name} -o {option}` runs a local command or loads code"
            elif text.startswith(("-F", "-I")) or (name != "ssh" and text.startswith(("-S", "-D"))):
                return f"`{name} {text[:2]}` reads a configuration or runs a program the rules do not see"
        elif name == "rsync" and (shell := _rsync_shell(text, value)) is not None:
            words = shell.split()
            if text.startswith("--rsync-path") or not words or words[0].rpartition("/")[2] != "ssh" \
                    or _runner_problem("ssh", words[1:]) is not None:
                return "`rsync -e`/`--rsync-path` runs the shell command it names"
        elif name in ("strace", "ltrace") and text.startswith(("-o", "--output")):
            target = text.partition("=")[2] if text.startswith("--output=") else (text[2:] if text[:2] == "-o" and
                                                                                    len(text) > 2 else value)
            if target[:1] in ("|", "!"):
                return f"`{name} -o '|CMD'` pipes its output into a shell command"
        elif name == "gdb" and text.lstrip("-").partition("=")[0] in _GDB and text.startswith("-"):
            return "`gdb -ex`/`-x` runs debugger commands (`shell`, `!`, python)"
        elif name == "man" and text.startswith(("-P", "--pager", "-H", "--html", "-C", "--config-file")):
            return "`man -P`/`-H`/`-C` runs a pager or browser it names (or reads a configuration naming one)"
    return None


def _rsync_shell(text: str, value: str) -> str | None:
    """The remote shell an rsync option ``text`` (followed by ``value``) names, or ``None``."""
    if text.startswith(("--rsh", "--rsync-path")):
        return text.partition("=")[2] or value
    if text[:1] == "-" and text[1:2] != "-" and "e" in text[1:]:
        return text[text.index("e", 1) + 1 :] or value
    return None


_SIMPLE: Final = frozenset("=dDgGhHlnNpPxzFqQLv")
"""sed commands that neither run nor open anything (``q``/``Q``/``l``/``L`` take a number)."""


def sed_problem(args: Sequence[str]) -> str | None:
    """Why a ``sed`` command with ``args`` may run a command or open a file its arguments do
    not name (a script file, or a script with ``e``, ``r``, ``R``, ``w``, ``W`` or an ``s``
    flag ``e``/``w``; an unreadable script counts too), or ``None``. ``--sandbox`` refuses
    those commands itself."""
    if "--sandbox" in args:
        return None
    scripts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        text = args[i]
        if text in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 2
            continue
        if text.startswith("--expression="):
            scripts.append(text.partition("=")[2])
        elif text in ("-f", "--file") or text.startswith("--file=") or (text.startswith("-f") and len(text) > 2):
            return "`sed -f` runs a script from a file the rules do not read"
        elif text.startswith("-e") and len(text) > 2:
            scripts.append(text[2:])
        elif text == "-l" or text == "--line-length":
            i += 1
        elif not text.startswith("-") or text == "-":
            operands.append(text)
        i += 1
    if not scripts and operands:
        scripts.append(operands[0])
    for script in scripts:
        if not _sed_script_is_inert(script):
            return "the `sed` script may run a command or read or write a file it names (`e`, `r`, `w`...)"
    return None


def _sed_script_is_inert(script: str) -> bool:
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!":
            i += 1
            continue
        if c == "#":
            i = _line_end(script, i)
            continue
        i = _skip_address(script, i)
        if i < 0:
            return False
        if i >= n:
            return True
        c = script[i]
        if c in " \t!":
            continue
        if c in "{};\n":
            continue
        if c in ":btT":
            i = _end_of_word(script, i + 1)
        elif c in "aic":
            i = _line_end(script, i)
        elif c in "sy":
            i = _skip_delimited(script, i + 1, 2)  # s/RE/REPLACEMENT/, y/SRC/DST/
            if i < 0:
                return False
            if c == "s":
                start = i
                while i < n and script[i] not in ";\n}":
                    i += 1
                if "e" in script[start:i] or "w" in script[start:i] or "W" in script[start:i]:
                    return False
        elif c in _SIMPLE:
            i += 1
            while i < n and script[i].isdigit():
                i += 1
        else:
            return False  # e, r, R, w, W, or anything not read here
    return True


def _skip_address(script: str, i: int) -> int:
    """The index after the address(es) at ``i`` (``-1``: unreadable)."""
    for _ in range(2):
        n = len(script)
        if i < n and script[i].isdigit():
            while i < n and (script[i].isdigit() or script[i] == "~"):
                i += 1
        elif i < n and script[i] == "$":
            i += 1
        elif i < n and script[i] in "/\\":
            if script[i] == "\\":
                i += 1
            i = _skip_delimited(script, i, 1)
            if i < 0:
                return -1
            while i < len(script) and script[i] in "IM":
                i += 1
        elif i < n and script[i] == "+" and i > 0:
            i += 1
            while i < n and script[i].isdigit():
                i += 1
        if i < len(script) and script[i] == ",":
            i += 1
            continue
        break
    return i


def _skip_delimited(script: str, i: int, parts: int) -> int:
    """``script[i]`` is a delimiter: the index after ``parts`` delimited parts (``-1``: unclosed)."""
    if i >= len(script) or script[i] in "\n\\":
        return -1
    delimiter = script[i]
    i += 1
    for _ in range(parts):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return -1
        i += 1
    return i


def _line_end(script: str, i: int) -> int:
    while i < len(script) and script[i] != "\n":
        i += 2 if script[i] == "\\" else 1
    return i


def _end_of_word(script: str, i: int) -> int:
    while i < len(script) and script[i] not in ";\n}":
        i += 1
    return i
