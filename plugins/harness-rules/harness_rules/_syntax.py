"""Rule syntax: ``TOOL`` or ``TOOL(SPECIFIER)``, parsed into a :class:`Rule`.

* ``TOOL`` is a common name, a native name (mapped to its common name, see
  :mod:`harness_rules._names`), a host tool name, an MCP tool ``mcp__server__tool``, an
  MCP server prefix ``mcp__server`` (all of that server's tools), or any of these with
  ``*`` wildcards (``mcp__github__*``, ``*``).
* For path tools (read, write, edit, grep, glob) SPECIFIER is a path pattern
  (:mod:`harness_rules._paths`).
* For bash SPECIFIER is a command pattern (:class:`CommandPattern`).
* For host tools, MCP tools and wildcards SPECIFIER is matched against what the call
  touches: its paths as a path pattern, its command as a command pattern.

Every malformed rule, and every rule that can match nothing, raises
:class:`~harness_rules.RuleSyntaxError` saying why.
"""

from __future__ import annotations

import enum
import re
import shlex
from typing import Final

import attrs

from ._errors import RuleSyntaxError
from ._names import COMMAND_TOOLS, NO_SPECIFIER_TOOLS, PATH_TOOLS, canonical_tool
from ._paths import PathPattern, compile_path_pattern

__all__ = ["STAR", "Action", "CommandPattern", "Rule", "RuleOrigin", "compile_command_pattern", "parse_rule"]

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.*-]+")
_PUNCTUATION: Final = "();<>|&"
_RESERVED: Final = frozenset({
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac",
    "select", "function", "{", "}", "!", "[[", "]]", "((", "))", "coproc",
})

STAR: Final = None
"""Marks a wildcard position in a :attr:`CommandPattern.alternatives` sequence."""


class Action(enum.StrEnum):
    """What a matching rule does: allow, ask or deny (deny beats ask beats allow)."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


@attrs.frozen
class RuleOrigin:
    """Where a rule was written.

    Attributes:
        layer: ``user``, ``project``, ``local``, ``code`` or ``file`` (``--rules``).
        source: the file path, or ``"<code>"``.
        line: the 1-based line in ``source`` (``None`` for rules passed in code).
    """

    layer: str
    source: str
    line: int | None = None

    def describe(self) -> str:
        """``source:line, layer layer`` (``source, layer layer`` without a line), as reasons show it."""
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}, {self.layer} layer"


@attrs.frozen
class CommandPattern:
    """A bash command pattern: ``*`` matches any run of characters, everything else is literal.

    The specifier is split into shell words (quotes removed) and rejoined with single
    spaces, the form simple commands are compared in. A trailing `` *`` also matches no
    arguments at all (``git status *`` matches ``git status`` and ``git status -s``, not
    ``git statusx``); Claude Code's ``git status:*`` means the same.

    Attributes:
        text: the normalized pattern.
        alternatives: the pattern as sequences of characters and :data:`STAR`, one per
            alternative (two when the optional tail applies), for intersection tests.
    """

    text: str
    alternatives: tuple[tuple[str | None, ...], ...]
    _regex: re.Pattern[str] = attrs.field(repr=False, eq=False)
    _deny_regex: re.Pattern[str] = attrs.field(repr=False, eq=False)

    @property
    def head(self) -> str | None:
        """The literal command name (first word) the pattern requires, or ``None`` when
        its first word holds a ``*`` (then any command may match)."""
        first = self.text.split(" ", 1)[0]
        return None if "*" in first else first

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern :meth:`matches` uses (``DOTALL``, no capturing groups)."""
        return self._regex

    @property
    def deny_regex(self) -> re.Pattern[str]:
        """The compiled pattern :meth:`matches_at` uses (``DOTALL``, no capturing groups)."""
        return self._deny_regex

    def matches_at(self, text: str, start: int) -> bool:
        """True when ``text[start:]`` matches the whole pattern, the command name also
        taken without its directory (``/bin/rm -rf x`` for ``rm -rf *``); for deny and
        ask checks of word suffixes, without copying ``text``."""
        return self._deny_regex.fullmatch(text, start) is not None

    def matches(self, command: str) -> bool:
        """True when the normalized simple command ``command`` matches the whole pattern.

        ``command`` may contain ``"\\x00"`` where unknown arguments go (``xargs``,
        ``find -exec``); only a ``*`` can match it, which holds for every possible value.
        """
        return self._regex.fullmatch(command) is not None

    def may_match(self, command: str) -> bool:
        """True when some value of the unknown parts (``"\\x00"``) makes ``command`` match."""
        if "\x00" not in command:
            return self.matches(command)
        subject = tuple(STAR if ch == "\x00" else ch for ch in command)
        return any(_intersects(alt, subject) for alt in self.alternatives)


def _intersects(a: tuple[str | None, ...], b: tuple[str | None, ...]) -> bool:
    """True when some string matches both wildcard sequences (``None`` = any run).

    ``ok[j]`` holds for the current ``i`` when ``a[i:]`` and ``b[j:]`` share a string;
    computed row by row from the ends (no recursion, so long commands are fine).
    """
    la, lb = len(a), len(b)
    below = [all(x is STAR for x in b[j:]) for j in range(lb + 1)]  # row i == la
    for i in range(la - 1, -1, -1):
        row = [False] * (lb + 1)
        row[lb] = all(x is STAR for x in a[i:])
        x = a[i]
        for j in range(lb - 1, -1, -1):
            y = b[j]
            if x is STAR or y is STAR:
                row[j] = below[j] or row[j + 1]
            else:
                row[j] = x == y and below[j + 1]
        below = row
    return below[0]


def compile_command_pattern(spec: str) -> CommandPattern:
    """Compile a bash specifier.

    Raises:
        RuleSyntaxError: the specifier is empty, has unbalanced quotes, looks like a path
            pattern (``//x``, ``**``, a directory as the command), or holds shell operators or
            redirections (a rule matches one simple command, so such a pattern could match
            nothing).
    """
    text = spec.strip()
    if text.endswith(":*"):
        text = text[:-2].rstrip() + " *"
    if not text:
        raise RuleSyntaxError("empty command pattern")
    if "\x00" in text:
        raise RuleSyntaxError(f"command pattern {spec!r} contains a NUL character")
    if text.startswith("//") or "**" in text or text.split()[0].endswith("/"):
        raise RuleSyntaxError(
            f"command pattern {spec!r} looks like a path pattern; bash rules take commands "
            "such as `bash(npm run test *)` (`*` matches any run of characters)"
        )
    if "`" in text or "$(" in text:
        raise RuleSyntaxError(
            f"command pattern {spec!r} holds a command substitution; each command is matched "
            "on its own, so write one rule per command"
        )
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError as exc:
        raise RuleSyntaxError(f"command pattern {spec!r}: {exc} (unbalanced quotes)") from None
    for word in words:
        if word and all(ch in _PUNCTUATION for ch in word):
            raise RuleSyntaxError(
                f"command pattern {spec!r} holds the shell operator {word!r}; a rule matches one "
                "simple command (without redirections), so write one rule per command"
            )
    if not words or not "".join(words).strip():
        raise RuleSyntaxError(f"command pattern {spec!r} is empty after removing quotes")
    if words[0] in _RESERVED or words[0].startswith("#"):
        raise RuleSyntaxError(
            f"command pattern {spec!r} starts with the shell keyword {words[0]!r}, which is never a "
            "command: rules match the simple commands inside compound commands, so name those"
        )
    normalized = " ".join(words)
    return _build_command_pattern(normalized)


def _build_command_pattern(normalized: str) -> CommandPattern:
    optional_tail = normalized.endswith(" *") and normalized != "*"
    head = normalized[:-2] if optional_tail else normalized
    pieces = head.split("*")
    regex_text = ".*".join(re.escape(p) for p in pieces)
    seq: list[str | None] = []
    for index, piece in enumerate(pieces):
        if index:
            seq.append(STAR)
        seq.extend(piece)
    alternatives = [tuple(seq)]
    if optional_tail:
        regex_text += "(?: .*)?"
        alternatives.append((*seq, " ", STAR))
    deny_text = "(?:[^ \x00]*/)?" + regex_text if "/" not in pieces[0].split(" ", 1)[0] else regex_text
    return CommandPattern(normalized, tuple(alternatives), re.compile(regex_text, re.DOTALL),
                          re.compile(deny_text, re.DOTALL))


class RuleKind(enum.StrEnum):
    """How a rule's specifier is read."""

    NAME = "name"  # no specifier
    PATH = "path"
    COMMAND = "command"
    ANY = "any"  # host / MCP / wildcard tools: per the call's resources


@attrs.frozen(eq=False)
class Rule:
    """One parsed rule (compared by identity: each written rule is its own).

    Attributes:
        text: the rule as written (stripped).
        action: allow, ask or deny.
        origin: where it was written.
        tool: the tool part as written.
        key: the canonical tool name (native built-in names mapped to common names).
        specifier: the text in parentheses, or ``None``.
        kind: how the specifier is read.
        path: the compiled path pattern, when the specifier is read as one.
        command: the compiled command pattern, when the specifier is read as one.
        name_regex: for wildcard tool names, the regex over tool names.
        mcp_server: for an MCP server prefix rule, the prefix ``mcp__server``.
    """

    text: str
    action: Action
    origin: RuleOrigin
    tool: str
    key: str
    specifier: str | None
    kind: RuleKind
    path: PathPattern | None = attrs.field(default=None, eq=False, repr=False)
    command: CommandPattern | None = attrs.field(default=None, eq=False, repr=False)
    name_regex: re.Pattern[str] | None = attrs.field(default=None, eq=False, repr=False)
    mcp_server: str | None = None

    def describe(self) -> str:
        """``action `rule` (source:line, layer layer)``, for reasons and listings."""
        return f"{self.action.value} rule `{self.text}` ({self.origin.describe()})"

    def names_match(self, names: frozenset[str]) -> bool:
        """For wildcard and MCP-prefix rules: True when any of ``names`` is matched."""
        if self.name_regex is not None:
            return any(self.name_regex.fullmatch(n) for n in names)
        if self.mcp_server is not None:
            # a tool with an empty name (`mcp__s__`) is still one of s's; the bare name denies and asks
            prefix, bare = self.mcp_server + "__", self.action is not Action.ALLOW
            return any(n.startswith(prefix) or (bare and n == self.mcp_server) for n in names)
        return False


def parse_rule(text: str, action: Action | str, origin: RuleOrigin) -> Rule:
    """Parse one rule string.

    Args:
        text: ``TOOL`` or ``TOOL(SPECIFIER)``.
        action: ``allow``, ``ask`` or ``deny``.
        origin: where it was written (reported with every decision it makes).

    Returns:
        The compiled :class:`Rule`.

    Raises:
        RuleSyntaxError: the rule is malformed or can match nothing.
    """
    if not isinstance(text, str):
        raise RuleSyntaxError(f"a rule must be a string, got {type(text).__name__} {text!r}")
    action = Action(action)
    rule_text = text.strip()
    if not rule_text:
        raise RuleSyntaxError("empty rule")
    open_at = rule_text.find("(")
    if open_at < 0:
        if ")" in rule_text:
            raise RuleSyntaxError(f"rule {text!r}: unbalanced parentheses (a ')' without '(')")
        tool, specifier = rule_text, None
    else:
        if not rule_text.endswith(")"):
            raise RuleSyntaxError(f"rule {text!r}: unbalanced parentheses (missing the closing ')')")
        tool, specifier = rule_text[:open_at].strip(), rule_text[open_at + 1 : -1]
        if not specifier.strip():
            raise RuleSyntaxError(
                f"rule {text!r}: empty specifier; write `{tool}` alone to match every {tool} call"
            )
    if not tool or _TOOL_NAME.fullmatch(tool) is None:
        raise RuleSyntaxError(
            f"rule {text!r}: {tool!r} is not a tool name (letters, digits, '_', '-', '.', '*')"
        )
    key = canonical_tool(tool)
    name_regex = None
    mcp_server = None
    if "*" in tool:
        name_regex = re.compile(".*".join(re.escape(p) for p in tool.split("*")))
    elif tool.startswith("mcp__"):
        server, sep, rest = tool[5:].partition("__")
        if not server or (sep and not rest):
            raise RuleSyntaxError(f"rule {text!r}: MCP names are `mcp__server` or `mcp__server__tool`")
        if not sep:
            mcp_server = tool
    if specifier is None:
        return Rule(rule_text, action, origin, tool, key, None, RuleKind.NAME,
                    name_regex=name_regex, mcp_server=mcp_server)
    if name_regex is None and mcp_server is None and key in NO_SPECIFIER_TOOLS:
        raise RuleSyntaxError(f"rule {text!r}: {key} calls touch no path or command, so a specifier can match nothing")
    if name_regex is None and mcp_server is None and key in PATH_TOOLS:
        return Rule(rule_text, action, origin, tool, key, specifier, RuleKind.PATH,
                    path=_path(specifier, text))
    if name_regex is None and mcp_server is None and key in COMMAND_TOOLS:
        return Rule(rule_text, action, origin, tool, key, specifier, RuleKind.COMMAND,
                    command=_command(specifier, text))
    # Host tools, MCP tools and wildcards: read the specifier the way the call needs it.
    path_pattern: PathPattern | None = None
    command_pattern: CommandPattern | None = None
    errors: list[str] = []
    try:
        path_pattern = compile_path_pattern(specifier)
    except RuleSyntaxError as exc:
        errors.append(str(exc))
    try:
        command_pattern = compile_command_pattern(specifier)
    except RuleSyntaxError as exc:
        errors.append(str(exc))
    if path_pattern is None and command_pattern is None:
        raise RuleSyntaxError(f"rule {text!r}: the specifier is neither a path nor a command pattern ({'; '.join(errors)})")
    return Rule(rule_text, action, origin, tool, key, specifier, RuleKind.ANY, path=path_pattern,
                command=command_pattern, name_regex=name_regex, mcp_server=mcp_server)


def _path(specifier: str, text: str) -> PathPattern:
    try:
        return compile_path_pattern(specifier)
    except RuleSyntaxError as exc:
        raise RuleSyntaxError(f"rule {text!r}: {exc}") from None


def _command(specifier: str, text: str) -> CommandPattern:
    try:
        return compile_command_pattern(specifier)
    except RuleSyntaxError as exc:
        raise RuleSyntaxError(f"rule {text!r}: {exc}") from None
