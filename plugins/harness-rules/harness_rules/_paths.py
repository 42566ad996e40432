"""Path patterns: gitignore-style globs with a base, path spellings, and search probing.

A path specifier is compiled into a :class:`PathPattern`: a *base* directory and a
gitignore-style pattern relative to it (matched with :mod:`pathspec`'s gitignore patterns).

========================  ==========================  =====================================
specifier                  base                        pattern
========================  ==========================  =====================================
``./src/**``, ``./.env``   the workspace root          anchored at the base (``/src/**``)
``src/*.py``               the workspace root          anchored (it has a slash inside)
``*.pem``, ``secrets/``    the workspace root          at any depth below the base
``~/.ssh/**``              the home directory          anchored
``//etc/**``               ``/``                       anchored
``../shared/**``           the root's parent           anchored
========================  ==========================  =====================================

A single leading ``/`` is refused as ambiguous (absolute or workspace-relative?), as are
patterns that can match nothing (empty, ``//``, ``~``, an unclosed ``[``, negation).

A call's path is checked under every *spelling*: the lexically normalized absolute path
(``.`` and ``..`` folded, relative paths joined to the working directory) and the path with
every symlink resolved (:func:`os.path.realpath`), each matched against the base as written
and the base with its symlinks resolved. Denials match any spelling; an allow must hold for
every spelling.

Search roots (grep, glob, or any path that is an existing directory) are checked for what
they could reveal: a deny or ask pattern holds when it matches the directory or anything
below it, found by a bounded walk pruned to the subtrees the pattern can reach.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from typing import Final, Literal

import attrs
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from ._errors import RuleSyntaxError
from ._resolve import Memo, case_insensitive, resolve

__all__ = [
    "Bases",
    "PathPattern",
    "ProbeResult",
    "Spelling",
    "compile_path_pattern",
    "normalize",
    "probe_tree",
    "spellings",
]

BaseKind = Literal["workspace", "home", "root"]
_MAGIC = re.compile(r"[*?\[]")


def normalize(path: str) -> str:
    """``path`` made absolute-clean: ``.``/``..`` folded, duplicate and leading ``//`` removed.

    ``path`` must be absolute. Purely lexical: symlinks are not consulted.
    """
    out = posixpath.normpath(path)
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    return out


def relative(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` (both normalized absolute), ``""`` for the base itself,
    ``None`` when ``path`` is not below ``base``."""
    return _rel(path, base)


def _rel(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` (both normalized absolute), ``""`` for the base itself."""
    if base == "/":
        return path[1:]
    if path == base:
        return ""
    if path.startswith(base) and path[len(base)] == "/":
        return path[len(base) + 1 :]
    return None


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
class Bases:
    """The directories patterns are anchored to, as written and with symlinks resolved.

    Attributes:
        workspace: the workspace root, normalized, and its resolved spelling.
        home: the home directory, normalized, and its resolved spelling.
    """

    workspace: tuple[str, ...]
    home: tuple[str, ...]
    casefold: bool = False

    @property
    def anchors(self) -> tuple[tuple[str, str], ...]:
        """``(directory, resolved directory)`` for the workspace root and the home."""
        return ((self.workspace[0], self.workspace[-1]), (self.home[0], self.home[-1]))

    @classmethod
    def for_root(cls, workspace_root: str, home: str) -> Bases:
        """Bases for an absolute workspace root and home directory; ``casefold`` when the
        root is on a case-insensitive file system (rules then match regardless of case)."""
        return cls(_both(workspace_root), _both(home), case_insensitive(workspace_root))


def _both(path: str) -> tuple[str, ...]:
    lit = normalize(os.path.abspath(path))
    real = os.path.realpath(lit)
    return (lit,) if real == lit else (lit, real)


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
        regex = self._folded if bases.casefold else self._regex
        for base in self.base_dirs(bases):
            rel = _rel(path, base)
            if rel and regex.match(rel + "/" if is_dir else rel):
                return True
        return False

    def covers(self, directory: str, bases: Bases) -> bool:
        """True when every path inside ``directory`` (normalized absolute) matches."""
        for base in self.base_dirs(bases):
            rel = _rel(directory, base)
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
        for base in self.base_dirs(bases):
            rel = _rel(directory, base)
            if rel is None:
                if _rel(base, directory) is not None:
                    return True  # the base lies inside the directory
                continue
            parts = tuple(p for p in rel.split("/") if p)
            if self._feasible(0, parts, 0):
                return True
        return False

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
    _check_can_match(segments, regex, spec)
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


_NAME_MAX: Final = 255
_PATH_MAX: Final = 4096
_CLASS_CANDIDATES: Final = ("xa0A_.-" + "".join(chr(c) for c in range(32, 127)) + "".join(chr(c) for c in range(1, 32))
                             + "\u00e9\u00ff\u0100\u4e00\U0001f600\U0010ffff").replace("/", "")
"""Characters tried for a class: every character a file name may hold has a candidate of
its kind (control, ASCII, Latin-1, BMP, astral); only ``/`` and NUL never occur."""


def _check_can_match(segments: Sequence[str], regex: re.Pattern[str], spec: str) -> None:
    """Refuse a pattern no file name can match: a segment longer than a file name may be,
    a character class only ``/`` could satisfy, a pattern longer than a path may be. An
    example path is built from the pattern (``*`` empty, ``?`` and classes one fitting
    character) and must match the compiled regex."""
    example: list[str] = []
    for seg in segments:
        if seg == "**":
            continue
        out: list[str] = []
        i = 0
        while i < len(seg):
            ch = seg[i]
            if ch == "*":
                pass
            elif ch == "?":
                out.append("x")
            elif ch == "\\" and i + 1 < len(seg):
                i += 1
                out.append(seg[i])
            elif ch == "[":
                end = seg.find("]", i + 2 if seg[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
                if end < 0:
                    out.append("[")
                else:
                    body = seg[i + 1 : end]
                    body = "^" + body[1:] if body.startswith("!") else body
                    try:
                        klass = re.compile("[" + body + "]")
                    except re.error:
                        return  # leave it to pathspec's own reading
                    pick = next((c for c in _CLASS_CANDIDATES if klass.fullmatch(c)), None)
                    if pick is None:
                        raise RuleSyntaxError(f"path pattern {spec!r} can never match: the character class "
                                              f"[{seg[i + 1:end]}] matches no character a file name can hold")
                    out.append(pick)
                    i = end
            else:
                out.append(ch)
            i += 1
        name = "".join(out)
        if len(name.encode()) > _NAME_MAX:
            raise RuleSyntaxError(f"path pattern {spec!r} can never match: a file name is at most "
                                  f"{_NAME_MAX} bytes, and {seg[:40]!r}... needs {len(name.encode())}")
        example.append(name or "x")
    text = "/".join(example) or "x"
    if len(text.encode()) > _PATH_MAX:
        raise RuleSyntaxError(f"path pattern {spec!r} can never match: paths are at most {_PATH_MAX} bytes")
    if not any(regex.match(candidate) for candidate in (text, text + "/", text + "/x", "x/" + text)):
        raise RuleSyntaxError(f"path pattern {spec!r} can never match a path (no file name fits it)")


@attrs.frozen
class Spelling:
    """One way of writing a path a call touches.

    Attributes:
        path: normalized absolute path.
        is_dir: the path is an existing directory (symlinks followed).
        resolved: this is the symlink-resolved spelling.
        unknown: why the OS's resolution of the path is not known here (a ``/proc/self``
            entry other than ``cwd``/``root``), or ``None``.
    """

    path: str
    is_dir: bool
    resolved: bool
    unknown: str | None = None


_PROC_CWD: Final = re.compile(r"^/proc/(?:self|thread-self)/cwd(?=/|$)")


def spellings(raw: str, cwd: str, home: str, bases: Bases | None = None, memo: Memo | None = None) -> tuple[Spelling, ...]:
    """Every spelling of the path ``raw`` as a tool running in ``cwd`` would see it.

    ``~`` and ``~/x`` are expanded to ``home``; the literal ``cwd/~/x`` is kept as well when
    an entry named ``~`` exists there. Relative paths join ``cwd``. The resolved spelling
    follows symlinks as the OS would for a process running in ``cwd``
    (:func:`~harness_rules._resolve.resolve`: ``/proc/self/cwd`` is ``cwd``); the lexical
    spelling has ``/proc/self/cwd`` replaced by ``cwd`` too.
    """
    candidates: list[str] = []
    if raw == "~" or raw.startswith("~/"):
        candidates.append(home + raw[1:])
        if os.path.lexists(os.path.join(cwd, "~")):
            candidates.append(os.path.join(cwd, raw))
    elif raw.startswith("~"):
        expanded = os.path.expanduser(raw)
        candidates.append(expanded if expanded != raw else os.path.join(cwd, raw))
    else:
        candidates.append(os.path.join(cwd, raw) if raw else cwd)
    seen: dict[str, Spelling] = {}
    anchors = () if bases is None else bases.anchors
    for cand in candidates:
        lit = normalize(cand)
        found = resolve(cand, cwd, anchors, memo)
        seen[lit] = Spelling(lit, found.is_dir if found.path == lit else os.path.isdir(lit), False, found.unknown)
        if _PROC_CWD.match(lit):
            local = normalize(_PROC_CWD.sub(lambda _: cwd, lit, count=1))
            seen.setdefault(local, Spelling(local, found.is_dir, False))
        if found.path not in seen:
            seen[found.path] = Spelling(found.path, found.is_dir, True, found.unknown)
    return tuple(seen.values())


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _link_or_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink() or entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


@attrs.frozen
class ProbeResult:
    """What a walk below a search root found.

    Attributes:
        found: ``(pattern index, path)`` for every pattern with a matching entry (first hit).
        truncated: the walk stopped at its entry limit before finishing.
        hits: in ``collect`` mode, every entry a stopping pattern matched (directories
            not walked into), in walk order.
    """

    found: dict[int, str]
    truncated: bool
    hits: tuple[str, ...] = ()


def probe_tree(
    roots: Sequence[str], patterns: Sequence[PathPattern], bases: Bases, *, limit: int,
    stop_at: Iterable[int] = (), exclude: Iterable[str] = (), collect: int = 0,
) -> ProbeResult:
    """Walk below the directories ``roots`` looking for entries matched by ``patterns``.

    Every entry is matched under its spelling inside the walk; a symlink also under its
    resolved spelling, against every pattern (a link can point anywhere), and symlinked
    directories are walked too (cycles are cut by the resolved path). Regular entries are
    only matched against patterns that can reach their directory. Base directories lying
    below a root are walked first, so denials there are found early.

    Args:
        roots: normalized absolute directories (the search roots' spellings).
        patterns: the deny and ask patterns to look for.
        bases: the anchoring bases.
        limit: the most directory entries to look at; past it the result is ``truncated``.
        stop_at: pattern indexes whose first hit ends the walk (the denials).
        exclude: normalized absolute paths left out of the walk with everything below
            them (a search's ``exclude`` list); a link whose target is excluded too.
        collect: when positive, a hit of a ``stop_at`` pattern does not end the walk:
            the entry is recorded in :attr:`ProbeResult.hits` and not descended into,
            until ``collect`` hits are found (the paths a search would have to exclude).

    Returns:
        A :class:`ProbeResult`.
    """
    found: dict[int, str] = {}
    hits: list[str] = []
    stops = set(stop_at)
    excluded = frozenset(exclude)

    def left_out(path: str) -> bool:
        while path and path != "/":
            if path in excluded:
                return True
            path = path.rpartition("/")[0]
        return False

    starts: list[tuple[str, str]] = [(root, os.path.realpath(root)) for root in roots]
    for root in roots:
        for pat in patterns:
            for base in pat.base_dirs(bases):
                if base != root and _rel(base, root) is not None and os.path.isdir(base):
                    starts.append((base, os.path.realpath(base)))
    stack = [s for s in dict.fromkeys(starts) if not (excluded and left_out(s[0]))]
    visited: set[str] = set()
    seen_entries = 0
    every = range(len(patterns))
    while stack:
        lit_dir, real_dir = stack.pop()
        if real_dir in visited:
            continue
        visited.add(real_dir)
        live = [i for i in every if (i not in found or (collect and i in stops)) and
                (patterns[i].may_reach(lit_dir, bases) or patterns[i].may_reach(real_dir, bases))]
        try:
            with os.scandir(lit_dir) as scan:
                entries = list(scan)
        except OSError:
            continue
        seen_entries += len(entries)
        if seen_entries > limit:
            return ProbeResult(found, True, tuple(hits))
        lit_prefix = lit_dir.rstrip("/") + "/"
        real_prefix = real_dir.rstrip("/") + "/"
        if not live:  # nothing here can match by name: only links (any target) and subdirectories matter
            try:
                entries = [e for e in entries if e.is_symlink() or e.is_dir(follow_symlinks=False)]
            except OSError:
                entries = [e for e in entries if _link_or_dir(e)]
        entries.sort(key=_entry_name)  # a fixed order: the same denial is reported
        for entry in entries:
            try:
                is_link = entry.is_symlink()
                if not is_link and not live:
                    stack.append((lit_prefix + entry.name, real_prefix + entry.name))
                    continue
                is_dir = entry.is_dir()
            except OSError:
                continue
            lit = lit_prefix + entry.name
            real = os.path.realpath(lit) if is_link else real_prefix + entry.name
            if excluded and (lit in excluded or (is_link and left_out(real))):
                continue
            hit = False
            for i in (every if is_link else live):
                if i in found and not (collect and i in stops):
                    continue
                pat = patterns[i]
                if pat.matches(lit, is_dir, bases) or (real != lit and pat.matches(real, is_dir, bases)):
                    found.setdefault(i, lit if real == lit else f"{lit} -> {real}")
                    if i in stops:
                        if not collect:
                            return ProbeResult(found, False)
                        hits.append(lit)
                        hit = True
                        if len(hits) >= collect:
                            return ProbeResult(found, False, tuple(hits))
                        break
            if is_dir and not hit:
                stack.append((lit, real))
    return ProbeResult(found, False, tuple(hits))
