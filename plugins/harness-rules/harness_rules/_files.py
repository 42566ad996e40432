"""Rules files: TOML layers, loaded with the line of every rule.

A rules file has one table, ``[permissions]``, holding up to three arrays of rule strings::

    [permissions]
    allow = ["bash(git status)", "read(./src/**)"]
    ask   = ["bash(git push *)"]
    deny  = ["read(./.env)"]

Layers, in reporting order: ``user`` (``$XDG_CONFIG_HOME/harness/rules.toml``, default
``~/.config/harness/rules.toml``), ``project`` (``<workspace>/.harness/rules.toml``),
``local`` (``<workspace>/.harness/rules.local.toml``, meant to be git-ignored) and ``code``
(rules passed to :class:`~harness_rules.RulesPolicy`). The layer never changes a decision
(deny beats ask beats allow everywhere); it is reported with each rule.

:mod:`tomllib` gives no positions for values, so each rule's line is found by scanning the
file's string tokens in order after its array's key. Every problem - a TOML syntax error,
an unknown table or key, a value that is not an array of strings, a bad rule - raises
:class:`~harness_rules.RulesFileError` with the file and line; nothing is skipped.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final

import attrs

from ._errors import RulesFileError, RuleSyntaxError
from ._syntax import Action, Rule, RuleOrigin, parse_rule

__all__ = [
    "CODE_SOURCE",
    "LAYERS",
    "MAX_RULES_BYTES",
    "RuleLayer",
    "discover_rule_files",
    "load_rules_file",
    "parse_rules_text",
    "rules_from_mapping",
    "user_rules_path",
]

LAYERS: Final = ("user", "project", "local", "code", "file")
"""Layer names, in reporting order (``file`` is for files given explicitly)."""

MAX_RULES_BYTES: Final = 1 << 20
"""The largest rules file read (1 MiB, some 30,000 rules); a larger one is an error."""

CODE_SOURCE: Final = "<code>"
"""The source name of rules passed in code."""

_TABLE: Final = "permissions"
_KEYS: Final = tuple(a.value for a in Action)


@attrs.frozen
class RuleLayer:
    """The rules of one layer.

    Attributes:
        layer: ``user``, ``project``, ``local``, ``code`` or ``file``.
        source: the file path, or ``"<code>"``.
        exists: False for a layer file that is not there (it contributes no rules).
        rules: the rules in file order: all ``allow``, then ``ask``, then ``deny`` entries
            as they appear under their keys.
    """

    layer: str
    source: str
    exists: bool
    rules: tuple[Rule, ...] = ()


def user_rules_path(env: Mapping[str, str] | None = None) -> Path:
    """The user layer's file: ``$XDG_CONFIG_HOME/harness/rules.toml`` when that variable
    holds an absolute path, else ``$HOME/.config/harness/rules.toml``."""
    env = os.environ if env is None else env
    config = env.get("XDG_CONFIG_HOME", "")
    if not config or not os.path.isabs(config):
        home = env.get("HOME") or os.path.expanduser("~")
        config = os.path.join(home, ".config")
    return Path(config) / "harness" / "rules.toml"


def discover_rule_files(workspace_root: str | os.PathLike[str], env: Mapping[str, str] | None = None,
                        ) -> list[tuple[str, Path]]:
    """The ``(layer, path)`` of the user, project and local files for a workspace root.

    The paths are returned whether or not the files exist.
    """
    root = Path(workspace_root)
    return [
        ("user", user_rules_path(env)),
        ("project", root / ".harness" / "rules.toml"),
        ("local", root / ".harness" / "rules.local.toml"),
    ]


def load_rules_file(path: str | os.PathLike[str], layer: str = "file", *, missing_ok: bool = False) -> RuleLayer:
    """Load one rules file.

    Args:
        path: the TOML file.
        layer: the layer name reported with its rules.
        missing_ok: a missing file gives an empty layer instead of an error.

    Raises:
        RulesFileError: the file cannot be read or is invalid (message ``path:line: ...``).
    """
    source = str(path)
    try:
        data = _read_regular(path)
    except FileNotFoundError:
        if os.path.lexists(path):  # a link to a missing file (an unmounted share): not "no rules"
            raise RulesFileError(source, None, "the rules file is a symbolic link to a missing file") from None
        if missing_ok:
            return RuleLayer(layer, source, False)
        raise RulesFileError(source, None, "no such rules file") from None
    except OSError as exc:
        raise RulesFileError(source, None, f"cannot read the rules file: {exc.strerror or exc}") from None
    if data is None:
        raise RulesFileError(source, None, "cannot read the rules file: not a regular file (a FIFO, device or directory, "
                                           "perhaps through a symbolic link)")
    if len(data) > MAX_RULES_BYTES:
        raise RulesFileError(source, None, f"the rules file is larger than {MAX_RULES_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesFileError(source, None, f"the rules file is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    return parse_rules_text(text, source, layer)


def _read_regular(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of a regular file (at most one more than :data:`MAX_RULES_BYTES`), or
    ``None`` for anything else: opened without blocking (a FIFO would wait for a writer)
    and never read past the limit (``/dev/zero`` never ends)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = MAX_RULES_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


_LOCATION = re.compile(r"\s*\(at line (\d+), column \d+\)$|\s*\(at end of document\)$")


def parse_rules_text(text: str, source: str, layer: str) -> RuleLayer:
    """Parse the TOML ``text`` of a rules file named ``source``.

    Raises:
        RulesFileError: a syntax error, unknown key, wrong value type or bad rule, with
            the line it is on.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _LOCATION.search(message)
        line = int(match.group(1)) if match and match.group(1) else text.count("\n") + 1
        problem = _LOCATION.sub("", message)
        raise RulesFileError(source, line, f"TOML syntax error: {problem}") from None
    tokens = list(_string_tokens(text))
    for key, value in document.items():
        if key != _TABLE:
            kind = "table" if isinstance(value, dict) else "key"
            raise RulesFileError(
                source, _key_line(text, tokens, key),
                f"unknown {kind} {key!r}; a rules file has only a [permissions] table with allow, ask and deny",
            )
    table = document.get(_TABLE, {})
    if not isinstance(table, dict):
        raise RulesFileError(source, _key_line(text, tokens, _TABLE), "'permissions' must be a table")
    for key in table:
        if key not in _KEYS:
            raise RulesFileError(
                source, _key_line(text, tokens, key),
                f"unknown key {key!r} in [permissions]; the keys are allow, ask and deny",
            )
    rules: list[Rule] = []
    for key in _KEYS:
        if key not in table:
            continue
        values = table[key]
        key_line = _key_line(text, tokens, key)
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise RulesFileError(source, key_line, f"permissions.{key} must be an array of rule strings")
        lines = _value_lines(text, tokens, key, values, key_line)
        for value, value_line in zip(values, lines, strict=True):
            try:
                rules.append(parse_rule(value, key, RuleOrigin(layer, source, value_line)))
            except RuleSyntaxError as exc:
                raise RulesFileError(source, value_line, str(exc)) from None
    return RuleLayer(layer, source, True, tuple(rules))


def rules_from_mapping(rules: Mapping[str, Sequence[str]], *, layer: str = "code",
                       source: str = CODE_SOURCE) -> RuleLayer:
    """Rules passed in code: ``{"allow": [...], "ask": [...], "deny": [...]}``.

    Raises:
        RulesFileError: an unknown key, a value that is not a sequence of strings, or a bad
            rule; the message names ``source`` and the entry (``deny[2]``).
    """
    if not isinstance(rules, Mapping):
        raise RulesFileError(source, None, f"rules must be a mapping of allow/ask/deny to lists, got {type(rules).__name__}")
    parsed: list[Rule] = []
    for key in rules:
        if key not in _KEYS:
            raise RulesFileError(source, None, f"unknown key {key!r}; the keys are allow, ask and deny")
    for key in _KEYS:
        values = rules.get(key, ())
        if isinstance(values, str) or not isinstance(values, Sequence):
            raise RulesFileError(source, None, f"{key} must be a list of rule strings, got {type(values).__name__}")
        for index, value in enumerate(values):
            try:
                parsed.append(parse_rule(value, key, RuleOrigin(layer, source, None)))
            except RuleSyntaxError as exc:
                raise RulesFileError(source, None, f"{key}[{index}]: {exc}") from None
    return RuleLayer(layer, source, True, tuple(parsed))


# -- locating values -------------------------------------------------------------------

_TOKEN = re.compile(
    r'(?P<comment>#[^\n]*)'
    r'|(?P<mlb>"""(?:[^"\\]|\\.|"(?!""))*"""(?:"{1,2}(?!"))?)'
    r"|(?P<mll>'''(?:[^']|'(?!''))*'''(?:'{1,2}(?!'))?)"
    r'|(?P<basic>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<literal>'[^'\n]*')",
    re.DOTALL,
)


@attrs.frozen
class _Token:
    start: int
    end: int
    value: str


def _string_tokens(text: str) -> Iterator[_Token]:
    """Every string literal in ``text`` (comments skipped), decoded, in order."""
    for match in _TOKEN.finditer(text):
        if match.lastgroup == "comment":
            continue
        raw = match.group(0)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:  # pragma: no cover - the document parsed already
            continue
        yield _Token(match.start(), match.end(), value)


def _masked(text: str, tokens: Sequence[_Token]) -> str:
    """``text`` with every string literal and comment blanked out (same length)."""
    chars = list(text)
    for token in tokens:
        for i in range(token.start, token.end):
            if chars[i] != "\n":
                chars[i] = "_"
    for match in re.finditer(r"#[^\n]*", "".join(chars)):
        for i in range(match.start(), match.end()):
            chars[i] = " "
    return "".join(chars)


def _key_offset(text: str, tokens: Sequence[_Token], key: str) -> int | None:
    """Where ``key`` is first written as a key (bare or quoted), or ``None``."""
    masked = _masked(text, tokens)
    candidates: list[int] = []
    bare = re.compile(r"(?<![\w-])" + re.escape(key) + r"(?![\w-])(?=[ \t]*(?:=|\]|\.))")
    candidates.extend(m.start() for m in bare.finditer(masked))
    for token in tokens:
        if token.value != key:
            continue
        after = text[token.end :]
        line_start = text.rfind("\n", 0, token.start) + 1
        before = masked[line_start : token.start].strip()
        if re.match(r"[ \t]*(?:=|\.)", after) or (before.startswith("[") and re.match(r"[ \t]*\]", after)):
            candidates.append(token.start)
    return min(candidates) if candidates else None


def _key_line(text: str, tokens: Sequence[_Token], key: str) -> int | None:
    offset = _key_offset(text, tokens, key)
    return None if offset is None else text.count("\n", 0, offset) + 1


def _value_lines(text: str, tokens: Sequence[_Token], key: str, values: Sequence[str],
                 key_line: int | None) -> list[int | None]:
    """The line of each of ``values``: the next string token equal to it after the key."""
    offset = _key_offset(text, tokens, key)
    if offset is None:
        return [key_line] * len(values)
    after = [t for t in tokens if t.start > offset]
    lines: list[int | None] = []
    position = 0
    for value in values:
        line: int | None = key_line
        for index in range(position, len(after)):
            if after[index].value == value:
                line = text.count("\n", 0, after[index].start) + 1
                position = index + 1
                break
        lines.append(line)
    return lines
