"""Shell options (``set``, ``shopt``, ``bash -o``/``-O``) the rules know to be inert.

An option changes how bash reads every later command: ``set -k`` (``-o keyword``) makes
``cat x PATH=out`` run ``cat`` with ``PATH=out`` (an assignment the line shows as an
argument), ``set -o posix`` expands aliases in a non-interactive shell, ``shopt -s
xpg_echo`` makes ``echo`` interpret escapes (the text a shell reads from it is not the text
written), ``shopt -s dotglob`` changes what a wildcard names. The options here are
allow-lists: an option not named below - including one a later bash adds - is asked
about, never taken for inert.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SET_LETTERS", "option_name_risk", "set_letters_risk", "shopt_name_risk"]

SET_LETTERS: Final = frozenset("ebfhmnptuvxBCEHT")
"""``set`` (and ``bash``) flag letters that change nothing the rules read: ``-e``, ``-u``,
``-x`` (``PS4`` is a code variable, asked about when assigned), ``-f`` (no wildcards: the
rules' expansion is a superset), ``-n``, ``-C``... Not here: ``-a`` (exports later
assignments), ``-k`` (assignments anywhere on a command line), ``-P`` (``cd`` resolves
links first)."""

SET_NAMES: Final = frozenset({
    "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand", "history",
    "ignoreeof", "monitor", "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "onecmd",
    "pipefail", "privileged", "verbose", "vi", "xtrace",
})
"""``set -o`` names that are inert (not ``allexport``, ``keyword``, ``physical``, ``posix``
nor ``interactive-comments``)."""

SHOPT_NAMES: Final = frozenset({
    "checkhash", "checkjobs", "checkwinsize", "cmdhist", "complete_fullquote", "execfail", "force_fignore",
    "gnu_errfmt", "histappend", "histreedit", "histverify", "hostcomplete", "huponexit", "inherit_errexit",
    "lastpipe", "lithist", "login_shell", "mailwarn", "no_empty_cmd_completion", "progcomp", "progcomp_alias",
    "promptvars", "restricted_shell", "shift_verbose", "sourcepath", "varredir_close",
})
"""``shopt`` names that are inert, set or unset. Not here, among others: the wildcard
options (``dotglob``, ``extglob``, ``nullglob``, ``globstar``, ``globskipdots``...),
``expand_aliases``, ``cdable_vars``, ``xpg_echo``, ``extdebug``, ``extquote``, the
``compat*`` options, ``assoc_expand_once``, ``patsub_replacement``, ``localvar_*``,
``interactive_comments``."""

_WHY: Final = ("changes how later commands are read (assignments anywhere, aliases, exports, "
               "`cd` through links, wildcards or `echo` escapes)")


def set_letters_risk(letters: str) -> str | None:
    """Why a cluster of ``set``/``bash`` flag letters (``eu`` of ``-eu``) cannot be judged,
    or ``None`` when every letter is inert (``o``, ``O``, ``c``, ``s``, ``i``, ``l``, ``r``
    are the caller's to read: they take values or choose what a shell runs)."""
    for letter in letters:
        if letter not in SET_LETTERS and letter not in "oOcsilr":
            return f"the shell option `-{letter}` {_WHY}"
    return None


def option_name_risk(name: str) -> str | None:
    """Why ``set -o NAME`` (``bash -o NAME``, ``shopt -o NAME``) cannot be judged, or ``None``."""
    if name in SET_NAMES:
        return None
    return f"the shell option `-o {name}` {_WHY}"


def shopt_name_risk(name: str) -> str | None:
    """Why ``shopt -s|-u NAME`` (``bash -O NAME``) cannot be judged, or ``None``."""
    if name in SHOPT_NAMES:
        return None
    return f"the shell option `shopt {name}` {_WHY}"
