"""Shell commands taken apart, so rules can judge every command that would run.

:func:`analyze_command` analyses a plain command line in the fast lane
(:mod:`harness_rules._fastlane`: a hand-written tokenizer, no parse tree); any other line
is parsed - with the fast pre-pass of :mod:`harness_rules._fastparse` when it is plain,
else with :mod:`bashlex` (imported on first use) - and its tree walked. Either way it
returns a :class:`ShellAnalysis` (the types live in :mod:`harness_rules._units`):

* :class:`CommandUnit` - one simple command that would run: each command of a list
  (``&&``, ``||``, ``;``, ``&``, newlines), of a pipeline, of a subshell or group, of a
  compound (``if``/``for``/``while``/``until``), of a function body, and of every command
  substitution (``$(...)``, backticks) and process substitution (``<(...)``, ``>(...)``),
  at any depth;
* :class:`PathAccess` - a file the command line writes (output redirections ``>``, ``>>``,
  ``>|``, ``&>``, ``&>>``, ``<>``, ``>&file``; ``tee`` arguments; files wrappers write) or
  reads (``<``); relative paths are resolved against the working directory, following
  ``cd``;
* :class:`Opaque` - something that cannot be judged (a command name or redirection target
  computed at run time, an option a wrapper does not document, a shell reading commands
  from a pipe, an unquoted here-document with command substitutions, a construct bashlex
  does not support). It is never allowed automatically; it carries text for a
  conservative deny check.

Wrappers (:mod:`harness_rules._wrappers`) are unwrapped: environment prefixes
(``FOO=1 cmd``), harmless wrappers whose inner command alone is judged (``nice``,
``ionice``, ``timeout``, ``env``, ``xargs``, ``busybox``...), guarded wrappers judged
together with their inner command (``sudo``, ``su -c``, ``find -exec``...), and wrappers
running shell text, which is parsed and judged command by command (``bash -c``, ``eval``,
``script -c``, ``parallel``...). A shell (or ``. /dev/stdin``) reading its standard input
runs what it reads: a here-document, a here-string, or the output of ``echo``/``printf``
of fixed text or ``cat`` of a literal here-document piped into it is judged as a script;
any other input is opaque. Arguments a wrapper supplies at run time (``xargs``, the ``{}``
of ``find -exec``) appear as ``"\\x00"`` in the unit's forms.

A command whose parse fails gives an analysis with :attr:`ShellAnalysis.error` set and one
:class:`Opaque` item built from a textual split of the command line.
"""

from __future__ import annotations

from functools import lru_cache

from ._fastlane import fast_analysis
from ._units import (
    MAX_COMMAND_CHARS,
    SAFE_ENV_NAMES,
    WORD_SPACE,
    CommandUnit,
    Cwds,
    Opaque,
    PathAccess,
    ShellAnalysis,
    show_command,
    textual_opaque,
)
from ._walker import Walker
from ._words import SENTINEL

__all__ = [
    "MAX_COMMAND_CHARS",
    "SAFE_ENV_NAMES",
    "SENTINEL",
    "WORD_SPACE",
    "CommandUnit",
    "Cwds",
    "Opaque",
    "PathAccess",
    "ShellAnalysis",
    "analyze_command",
    "show_command",
]


def analyze_command(command: str, cwd: str, home: str) -> ShellAnalysis:
    """Take ``command`` apart (see the module docs).

    Args:
        command: the shell command line.
        cwd: the absolute directory it starts in (the workspace root).
        home: the home directory (``cd`` with no argument, ``~``).

    Returns:
        The :class:`ShellAnalysis`; results are cached per ``(command, cwd, home)``.
    """
    return _analyze_cached(command, cwd, home)


@lru_cache(maxsize=4096)
def _analyze_cached(command: str, cwd: str, home: str) -> ShellAnalysis:
    if len(command) > MAX_COMMAND_CHARS:
        reason = (f"the command is {len(command)} characters long, more than the {MAX_COMMAND_CHARS} the rules "
                  "analyse")
        return ShellAnalysis(command, error=reason, opaque=(Opaque(show_command(command, 80), reason),))
    fast = fast_analysis(command, cwd, home)
    if fast is not None:
        return fast
    walker = Walker(home)
    error = walker.script(command, (cwd,), 0)
    if error is not None:
        return ShellAnalysis(command, error=error, opaque=(textual_opaque(command, error),))
    return ShellAnalysis(command, tuple(walker.units), tuple(walker.paths), tuple(walker.opaque))


