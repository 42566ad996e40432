"""Errors raised by harness-rules: every one names the file and line at fault."""

from __future__ import annotations

from harness_core import HarnessError

__all__ = ["RuleSyntaxError", "RulesError", "RulesFileError"]


class RulesError(HarnessError):
    """Base class of harness-rules errors (bad rules, bad rule files)."""


class RuleSyntaxError(RulesError, ValueError):
    """One rule string is malformed or can match nothing.

    Raised by :func:`harness_rules.parse_rule`; the loaders turn it into a
    :class:`RulesFileError` carrying the file and line.
    """


class RulesFileError(RulesError, ValueError):
    """A rules file (or the rules passed in code) cannot be used.

    The message starts with ``source:line:`` (``source`` alone when no line applies) so
    editors and terminals can jump to it.

    Attributes:
        source: the file path, or ``"<code>"`` for rules passed in code.
        line: the 1-based line, or ``None`` when the problem is not on one line.
        problem: the message without the location prefix.
    """

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {problem}")
