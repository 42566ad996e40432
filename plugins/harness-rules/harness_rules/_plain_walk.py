"""The control flow of a plain command line: which directory and standard input each of its
commands runs with.

:class:`PlainWalk` goes through the :class:`~harness_rules._fastlex.Line` s
:func:`~harness_rules._fastlex.lex` reads as :meth:`Walker.sequence` and
:meth:`Walker.pipeline` (:mod:`harness_rules._walker`) go through bashlex's tree of the same
line: lines run one after the other, ``&&`` carries a ``cd`` on while ``||``, ``;`` and ``&``
join both directories, each pipeline stage runs in a subshell and reads the previous stage's
output (fixed text when that stage prints it: ``echo``/``printf`` of plain words). It calls a
visitor for each command; the fast lane (:mod:`harness_rules._fastlane`) records what the
command adds to the analysis, the plain-line judge (:mod:`harness_rules._judge_plain`) plans
its judging.
"""

from __future__ import annotations

from collections.abc import Callable

from ._fastlex import Line, Pipeline, Plain
from ._units import Cwds, union
from ._walk_words import INHERITED, Stdin, literal_print

__all__ = ["PlainWalk", "Visit"]

Visit = Callable[[Plain, Cwds, Stdin], Cwds]
"""``visit(command, cwds, stdin) -> cwds after it``: called for each command in order."""


class PlainWalk:
    """Visits the commands of plain lines in order, with their directories and input.

    Args:
        source: the whole command line (for the standard input's description).
        literal_ok: ``echo``/``printf`` output may be taken as fixed text (False once the
            line may redefine them: :func:`~harness_rules._walker.may_redefine_output`).
        visit: the :data:`Visit` called for each command.
    """

    def __init__(self, source: str, literal_ok: bool, visit: Visit) -> None:
        self.source = source
        self.literal_ok = literal_ok
        self.visit = visit

    def lines(self, lines: list[Line], cwd: str) -> None:
        """Visit every command of ``lines``, starting in the directory ``cwd``."""
        cwds: Cwds = (cwd,)
        for line in lines:  # lines run one after the other, whether or not a `cd` failed
            cwds = union(cwds, self.sequence(line, cwds))

    def sequence(self, items: Line, cwds: Cwds) -> Cwds:
        """:meth:`Walker.sequence`: ``&&`` carries the directory on, the others join both."""
        first = items[0]
        if len(items) == 1 and not isinstance(first, str):
            return self.pipeline(first, cwds)
        current = before = cwds
        for item in items:
            if isinstance(item, str):
                if item != "&&":
                    current = union(before, current)
                continue
            before = current
            current = self.pipeline(item, current)
        return current

    def pipeline(self, stages: Pipeline, cwds: Cwds) -> Cwds:
        """:meth:`Walker.pipeline`: each stage reads the previous stage's output."""
        if len(stages) == 1:
            return self.visit(stages[0], cwds, INHERITED)
        stdin = INHERITED
        previous: Plain | None = None
        for stage in stages:
            if previous is not None:
                start, end = previous.start, previous.end
                shown = f"the output of `{self.source[start:min(end, start + 80)]}`"
                text = self._literal_output(previous)
                stdin = Stdin("pipe", origin=shown) if text is None else Stdin("literal", text, shown)
            self.visit(stage, cwds, stdin)
            previous = stage
        return cwds

    def _literal_output(self, cmd: Plain) -> str | None:
        """:meth:`WordReader.literal_output` of a plain command."""
        if not self.literal_ok or cmd.assignments or not cmd.words or cmd.redirects:
            return None  # a redirection: only `cat <<EOF` would print fixed text, not plain
        return literal_print(cmd.words[0], cmd.words[1:])
