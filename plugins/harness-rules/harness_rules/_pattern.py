"""Compiled path specifiers: a base directory and a gitignore-style pattern below it.

See :mod:`harness_rules._paths` for the specifier table. A specifier is compiled with
:mod:`pathspec`'s gitignore patterns into a :class:`PathPattern`; one that is ambiguous or
can never match is refused with :class:`~harness_rules.RuleSyntaxError`
(:func:`~harness_rules._can_match.check_can_match`).
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Final, Literal

import attrs
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from ._bases import Bases, relative
from ._can_match import check_can_match
from ._errors import RuleSyntaxError
from ._memo import RepeatMemo

__all__ = ["BaseKind", "PathPattern", "compile_path_pattern"]

BaseKind = Literal["workspace", "home", "root"]
_MAGIC: Final = re.compile(r"[*?\[]")
_MEMO_SIZE: Final = 8192


def _compile(pattern: str, spec: str) -> re.Pattern[str]:
    try:
        compiled = GitIgnoreSpecPattern(pattern)
    except Exception as exc:  # pathspec raises its own error types for invalid patterns
        raise RuleSyntaxError(f"path pattern {spec!r} is not a valid gitignore pattern: {exc}") from None
    if compiled.regex is None or not compiled.include:
        raise RuleSyntaxError(
            f"path pattern {spec!r} can match nothing (check for an unclosed '[' or an empty class)"
        )
    regex = compiled.regex
    assert isinstance(regex, re.Pattern)
    return regex


@attrs.frozen
class PathPattern:
    """A compiled path specifier (see the module docs).

    Attributes:
        text: the specifier as written.
        base: which base it is anchored to.
        ups: leading ``..`` steps above the base (``../shared/**``: 1).
        pattern: the gitignore pattern relative to the base.
        segments: the pattern's segments (``**`` first when unanchored), for pruning walks.
        dir_only: the pattern ends with ``/`` (matches directories and what is inside).
    """

    text: str
    base: BaseKind
    ups: int
    pattern: str
    segments: tuple[str, ...]
    dir_only: bool
    _regex: re.Pattern[str] = attrs.field(repr=False, eq=False)
    _cover_regex: re.Pattern[str] | None = attrs.field(repr=False, eq=False)
    _cover_all: bool = attrs.field(repr=False)
    _segment_regexes: tuple[re.Pattern[str] | None, ...] = attrs.field(repr=False, eq=False)
    _memo: RepeatMemo[tuple[str, bool, Bases] | tuple[str, Bases] | tuple[str, Bases, str], bool] = attrs.field(
        init=False, factory=lambda: RepeatMemo(_MEMO_SIZE), repr=False, eq=False, hash=False)
    """Results of :meth:`matches`, :meth:`covers` and :meth:`may_reach` by arguments: all are pure string
    functions (no file system access), so they are kept across decisions (bounded)."""

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled gitignore regex over base-relative paths (directories end with ``/``)."""
        return self._regex

    @functools.cached_property
    def _folded(self) -> re.Pattern[str]:
        return re.compile(self._regex.pattern, re.IGNORECASE)

    def base_dirs(self, bases: Bases) -> tuple[str, ...]:
        """The absolute base directories (as written, resolved) for these ``bases``."""
        if self.base == "root":
            return ("/",)
        dirs = bases.workspace if self.base == "workspace" else bases.home
        if self.ups:
            dirs = tuple(dict.fromkeys(_up(d, self.ups) for d in dirs))
        return dirs

    def matches(self, path: str, is_dir: bool, bases: Bases) -> bool:
        """True when the normalized absolute ``path`` (a directory when ``is_dir``) matches.

        Gitignore semantics: a path inside a matched directory matches too.
        """
        key = (path, is_dir, bases)
        memo = self._memo
        found = memo.get(key)
        if found is not None:
            return found
        found = False
        regex = self._folded if bases.casefold else self._regex
        for base in self.base_dirs(bases):
            rel = relative(path, base)
            if rel and regex.match(rel + "/" if is_dir else rel):
                found = True
                break
        return memo.remember(key, found)

    def covers(self, directory: str, bases: Bases) -> bool:
        """True when every path inside ``directory`` (normalized absolute) matches."""
        key = (directory, bases, "covers")
        memo = self._memo
        found = memo.get(key)
        if found is None:
            found = memo.remember(key, self._covers(directory, bases))
        return found

    def _covers(self, directory: str, bases: Bases) -> bool:
        for base in self.base_dirs(bases):
            rel = relative(directory, base)
            if rel is None:
                continue
            if self._cover_all:
                return True
            if not rel:
                continue
            probe = rel + "/"
            if self._regex.match(probe) or (self._cover_regex is not None and self._cover_regex.match(probe)):
                return True
        return False

    def may_reach(self, directory: str, bases: Bases) -> bool:
        """True when something inside ``directory`` could match, judged from names alone.

        Used to prune walks: ``False`` means no path below ``directory`` can ever match.
        """
        key = (directory, bases)
        memo = self._memo
        found = memo.get(key)
        if found is not None:
            return found
        found = False
        for base in self.base_dirs(bases):
            rel = relative(directory, base)
            if rel is None:
                if relative(base, directory) is not None:
                    found = True  # the base lies inside the directory
                    break
                continue
            parts = tuple(p for p in rel.split("/") if p)
            if self._feasible(0, parts, 0):
                found = True
                break
        return memo.remember(key, found)

    def _feasible(self, i: int, parts: tuple[str, ...], j: int) -> bool:
        segs = self.segments
        while True:
            if j == len(parts) or i == len(segs):
                return True
            if segs[i] == "**":
                if self._feasible(i + 1, parts, j):
                    return True
                j += 1
                continue
            regex = self._segment_regexes[i]
            if regex is None or not regex.match(parts[j]):
                return False
            i += 1
            j += 1


def _up(path: str, steps: int) -> str:
    for _ in range(steps):
        path = posixpath.dirname(path)
    return path


_EMPTY_HINT: Final = "use `./**`, `~/**` or `//**` to match everything under a base"


def compile_path_pattern(spec: str) -> PathPattern:
    """Compile a path specifier.

    Args:
        spec: the text between the rule's parentheses. ``~/`` patterns stay relative to
            the home base given at match time; ``~user/`` patterns are expanded now.

    Raises:
        RuleSyntaxError: the pattern is ambiguous, malformed or can match nothing; the
            message says why and how to write it.
    """
    text = spec.strip()
    if not text:
        raise RuleSyntaxError("empty path pattern")
    if "\x00" in text:
        raise RuleSyntaxError(f"path pattern {spec!r} contains a NUL character")
    if text.startswith("!"):
        raise RuleSyntaxError(
            f"path pattern {spec!r}: negation is not supported; put the exception in a stronger "
            "list instead (deny beats ask beats allow)"
        )
    base: BaseKind = "workspace"
    ups = 0
    anchored = True
    if text.startswith("//"):
        base, rest = "root", text.lstrip("/")
    elif text == "~" or text.startswith("~/"):
        base, rest = "home", text[2:]
    elif text.startswith("~"):
        user, _, rest = text.partition("/")
        expanded = os.path.expanduser(user)
        if expanded == user:
            raise RuleSyntaxError(f"path pattern {spec!r}: unknown user in {user!r}")
        if not rest.strip("/"):
            raise RuleSyntaxError(f"path pattern {spec!r} names no file and can match nothing; {_EMPTY_HINT}")
        base, rest = "root", expanded.lstrip("/") + "/" + rest
    elif text.startswith("/"):
        raise RuleSyntaxError(
            f"path pattern {spec!r} is ambiguous: write `/{text}` for an absolute path or "
            f"`.{text}` for a path under the workspace root"
        )
    elif text in (".", "./") or text.startswith("./") or text == ".." or text.startswith("../"):
        rest = text
    else:
        rest = text
        anchored = "/" in text.rstrip("/")
    dir_only = rest.endswith("/")
    segments: list[str] = []
    for seg in rest.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if segments and segments[-1] != "**" and not _MAGIC.search(segments[-1]):
                segments.pop()
            elif segments:
                raise RuleSyntaxError(f"path pattern {spec!r}: `..` after a wildcard is ambiguous")
            elif base == "root":
                continue
            else:
                ups += 1
            continue
        segments.append(seg)
    if not segments:
        raise RuleSyntaxError(f"path pattern {spec!r} names no file and can match nothing; {_EMPTY_HINT}")
    body = "/".join(segments)
    pattern = ("/" if anchored else "") + body + ("/" if dir_only else "")
    regex = _compile(pattern, spec)
    feasibility = tuple(segments) if anchored else ("**", *segments)
    seg_regexes = tuple(None if s == "**" else _compile("/" + s, spec) for s in feasibility)
    tail = list(segments)
    stripped = False
    while tail and tail[-1] in ("*", "**"):
        tail.pop()
        stripped = True
    cover_all = stripped and not tail
    cover_regex = None
    if stripped and tail:
        cover_regex = _compile("/" + "/".join(tail), spec)
    check_can_match(segments, regex, spec)
    return PathPattern(
        text=spec,
        base=base,
        ups=ups,
        pattern=pattern,
        segments=feasibility,
        dir_only=dir_only,
        regex=regex,
        cover_regex=cover_regex,
        cover_all=cover_all,
        segment_regexes=seg_regexes,
    )


