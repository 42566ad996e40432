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

from collections.abc import Sequence
from typing import Final

from ._grammars import (
    CHROOT,
    CHRT,
    DOAS,
    EXEC,
    NICE,
    PKEXEC,
    SETSID,
    STDBUF,
    SUDO,
    TASKSET,
    UNBUFFER,
    flag_set,
)
from ._unwrap import SHELLS, STDIN_FILES, Handler, Unwrap
from ._words import Options
from ._wrap_exec import (
    after_operand,
    after_options,
    applet,
    unwrap_command_builtin,
    unwrap_env,
    unwrap_flock,
    unwrap_ionice,
    unwrap_jobs,
    unwrap_time,
    unwrap_timeout,
    unwrap_xargs,
)
from ._wrap_privilege import (
    guarded_after,
    privileged,
    unwrap_find,
    unwrap_firejail,
    unwrap_runuser,
    unwrap_su,
)
from ._wrap_scripts import (
    unwrap_alias,
    unwrap_eval,
    unwrap_parallel,
    unwrap_script_command,
    unwrap_shell,
    unwrap_source,
    unwrap_trap,
    unwrap_watch,
)

__all__ = [
    "LEAF_COMMANDS",
    "SHELLS",
    "STDIN_FILES",
    "SUBCOMMAND_TOOLS",
    "WRAPPERS",
    "Unwrap",
    "subcommand_index",
]


WRAPPERS: Final[dict[str, Handler]] = {
    "command": unwrap_command_builtin,
    "builtin": after_options(Options(), "builtin"),
    "exec": after_options(EXEC, "exec"),
    "nohup": after_options(Options(), "nohup"),
    "setsid": after_options(SETSID, "setsid"),
    "nice": after_options(NICE, "nice"),
    "ionice": unwrap_ionice,
    "taskset": after_operand(TASKSET, "taskset", no_command=("-p", "--pid")),
    "chrt": after_operand(CHRT, "chrt", no_command=("-p", "--pid", "-m", "--max")),
    "timeout": unwrap_timeout,
    "stdbuf": after_options(STDBUF, "stdbuf"),
    "unbuffer": after_options(UNBUFFER, "unbuffer"),
    "time": unwrap_time,
    "env": unwrap_env,
    "flock": unwrap_flock,
    "busybox": applet("busybox"),
    "toybox": applet("toybox"),
    "sudo": privileged(SUDO, "sudo"),
    "doas": privileged(DOAS, "doas"),
    "su": unwrap_su,
    "runuser": unwrap_runuser,
    "pkexec": guarded_after(PKEXEC, "pkexec"),
    "chroot": guarded_after(CHROOT, "chroot", operands_before=1),
    "firejail": unwrap_firejail,
    "script": unwrap_script_command,
    "xargs": unwrap_xargs,
    "jobs": unwrap_jobs,
    "parallel": unwrap_parallel,
    "find": unwrap_find,
    "eval": unwrap_eval,
    "watch": unwrap_watch,
    "trap": unwrap_trap,
    "alias": unwrap_alias,
    ".": unwrap_source,
    "source": unwrap_source,
    **{name: unwrap_shell for name in SHELLS},
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
    "git": flag_set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"),
    "docker": flag_set("-H", "--host", "--context", "-c", "--config", "-l", "--log-level"),
    "podman": flag_set("--url", "--connection", "-c", "--log-level", "--root", "--runroot"),
    "kubectl": flag_set("-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user"),
    "helm": flag_set("-n", "--namespace", "--kube-context", "--kubeconfig"),
    "npm": flag_set("--prefix", "-w", "--workspace"),
    "pnpm": flag_set("-C", "--dir", "--filter", "-F"),
    "yarn": flag_set("--cwd",),
    "bun": frozenset(), "deno": frozenset(), "cargo": flag_set("-Z", "--config", "-C"),
    "go": frozenset(), "rustup": frozenset(), "pip": frozenset(), "pip3": frozenset(), "uv": flag_set("--directory"),
    "poetry": flag_set("-C", "--directory"), "pipenv": frozenset(), "conda": frozenset(), "mamba": frozenset(),
    "gem": frozenset(), "bundle": frozenset(), "composer": flag_set("-d", "--working-dir"), "dotnet": frozenset(),
    "gh": flag_set("-R", "--repo"), "glab": flag_set("-R", "--repo"), "hg": flag_set("-R", "--repository", "--cwd"),
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
