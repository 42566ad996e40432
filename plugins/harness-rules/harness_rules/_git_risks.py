"""git invocations that run a command given on the line or store one git runs later.

:func:`git_problem` reads git's global options (``-c KEY=VALUE`` with a key that may name a
program, ``--exec-path``, ``--config-env``) and then the subcommand's own: ``difftool
-x``/``--extcmd``, ``rebase -x``/``--exec``, ``submodule foreach``, ``filter-branch``,
``--upload-pack``/``-u`` (fetch, pull, clone, ls-remote), ``--receive-pack``/``--exec``
(push, archive), ``init``/``clone --template`` (copies hooks into the repository),
``send-email`` commands, an ``ext::`` URL, and ``git config`` setting a key that may name a
program (``core.fsmonitor``, ``core.pager``, ``alias.x``, ``include.path``...) or opening an
editor. It returns why such a command cannot be judged as written, or ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._wrappers import subcommand_index

__all__ = ["git_problem"]

SAFE_KEYS: Final = ("color.", "user.", "advice.", "init.defaultbranch", "log.", "format.", "i18n.",
                    "core.quotepath", "core.autocrlf", "core.filemode", "core.ignorecase", "diff.noprefix",
                    "diff.renames", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote",
                    "commit.gpgsign", "tag.gpgsign", "safe.directory", "fetch.prune", "merge.ff", "rebase.autostash")
"""Configuration keys whose values never name a command, a program, a file of code or hooks."""

_SUBCOMMAND_OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "difftool": ("-x", "--extcmd"),
    "rebase": ("-x", "--exec"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "fetch-pack": ("--upload-pack", "--exec"),
    "clone": ("--upload-pack", "-u", "--template"),
    "init": ("--template",),
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "archive": ("--exec",),
    "send-email": ("--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"),
}
"""Per subcommand, the options whose value is a command or program git runs (or a
template directory whose hooks it copies)."""
_CONFIG_VALUED: Final = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_CONFIG_READS: Final = frozenset({"get", "list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l",
                                  "--list", "--unset", "--unset-all", "unset", "--get-color", "--get-colorbool"})


def git_problem(args: Sequence[str]) -> str | None:
    """Why ``git args`` (texts) may run a command its line does not show, or ``None``."""
    sub = subcommand_index("git", args)
    for index, text in enumerate(args if sub is None else args[:sub]):
        if text in ("--exec-path", "--config-env") or text.startswith(("--exec-path=", "--config-env=")):
            return f"`git {text.partition('=')[0]}` changes the programs git runs"
        if text == "-c":
            key = args[index + 1].partition("=")[0].lower() if index + 1 < len(args) else ""
            if not key.startswith(SAFE_KEYS):
                return f"`git -c {key or '...'}` may set a command git runs (an alias, a diff or fsmonitor program)"
    if sub is None:
        return None
    name, rest = args[sub], args[sub + 1 :]
    if any(text.startswith(("ext::", "fd::")) for text in rest):
        return "an `ext::` URL makes git run a command as the transport"
    if name == "filter-branch" or (name == "submodule" and "foreach" in rest):
        return f"`git {name}` runs shell commands given on its line"
    if name == "config":
        return _config_problem(rest)
    for option in _SUBCOMMAND_OPTIONS.get(name, ()):
        for text in rest:
            if text == option or text.startswith(option + "=") or (len(option) == 2 and text.startswith(option)):
                return f"`git {name} {option}` runs a command or program it names (or copies hooks)"
    return None


def _config_problem(rest: Sequence[str]) -> str | None:
    """``git config``: an editor (``-e``), or a write of a key that may name a program."""
    operands: list[str] = []
    reads = False
    i = 0
    while i < len(rest):
        text = rest[i]
        if text in ("-e", "--edit", "edit"):
            return "`git config --edit` opens an editor"
        if text in _CONFIG_READS:
            reads = True
        elif text in _CONFIG_VALUED:
            i += 1
        elif not text.startswith("-"):
            operands.append(text)
        i += 1
    if operands and operands[0] == "set":
        operands = operands[1:]
        reads = False
    if reads or len(operands) < 2:
        return None
    key = operands[0].lower()
    if key.startswith(SAFE_KEYS):
        return None
    return f"`git config {key}` stores a value git may run as a command or load as code (an alias, a pager, hooks)"
