"""Bounded walks below search roots and directory arguments, looking for what deny and ask
patterns cover (symlinks followed, cycles cut, pruned to the subtrees a pattern can reach)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

import attrs

from ._bases import Bases, relative
from ._pattern import PathPattern
from ._resolve import LOOP, Memo, resolve

__all__ = ["ProbeResult", "probe_tree"]


def _first(found: list[str]) -> str | None:
    return found[0] if found else None


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
        unknown: a link below the roots whose target the rules cannot resolve (a loop, a
            ``/proc/self/fd`` entry), with why, or ``None``.
    """

    found: dict[int, str]
    truncated: bool
    hits: tuple[str, ...] = ()
    unknown: str | None = None


def probe_tree(
    roots: Sequence[str], patterns: Sequence[PathPattern], bases: Bases, *, limit: int,
    stop_at: Iterable[int] = (), exclude: Iterable[str] = (), collect: int = 0, memo: Memo | None = None,
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
            them (a search's ``exclude`` list, joined to the *resolved* workspace root), as
            the built-in search tools leave them out: an entry is left out when the path it
            has in its resolved directory is below one (``zlink/.env`` for a linked
            directory ``zlink`` leaves out nothing: the tools never walk linked
            directories, they read the file as ``areal/.env``), a link also when its
            target is.
        collect: when positive, a hit of a ``stop_at`` pattern does not end the walk:
            the entry is recorded in :attr:`ProbeResult.hits` and not descended into,
            until ``collect`` hits are found (the paths a search would have to exclude,
            each under the resolved spelling of its directory: what the tool excludes).

        memo: ``lstat`` results of the current decision (shared with path resolution);
            links are resolved with :func:`~harness_rules._resolve.resolve`, as the OS
            would, starting from the already-resolved workspace root and home.

    Returns:
        A :class:`ProbeResult`.
    """
    anchors = bases.anchors
    cwd = bases.workspace[0]  # `/proc/self/cwd` in a link: the process searching works in the root
    strange: list[str] = []

    def realpath(path: str) -> str:
        found = resolve(path, cwd, anchors, memo)
        if found.unknown is not None and found.unknown != LOOP and not strange:  # a loop opens nothing
            strange.append(f"`{path}`: {found.unknown}")
        return found.path

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

    starts: list[tuple[str, str]] = [(root, realpath(root)) for root in roots]
    for root in roots:
        for pat in patterns:
            for base in pat.base_dirs(bases):
                if base != root and relative(base, root) is not None and os.path.isdir(base):
                    starts.append((base, realpath(base)))
    stack = [s for s in dict.fromkeys(starts) if not (excluded and left_out(s[1]))]
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
            return ProbeResult(found, True, tuple(hits), _first(strange))
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
                    if not (excluded and real_prefix + entry.name in excluded):
                        stack.append((lit_prefix + entry.name, real_prefix + entry.name))
                    continue
                is_dir = entry.is_dir()
            except OSError:
                continue
            lit = lit_prefix + entry.name
            real = realpath(lit) if is_link else real_prefix + entry.name
            if excluded and (real_prefix + entry.name in excluded or (is_link and left_out(real))):
                continue  # never the literal spelling: a walk through a linked directory is not the tool's
            hit = False
            for i in (every if is_link else live):
                if i in found and not (collect and i in stops):
                    continue
                pat = patterns[i]
                if pat.matches(lit, is_dir, bases) or (real != lit and pat.matches(real, is_dir, bases)):
                    found.setdefault(i, lit if real == lit else f"{lit} -> {real}")
                    if i in stops:
                        if not collect:
                            return ProbeResult(found, False, (), _first(strange))
                        hits.append(real_prefix + entry.name)
                        hit = True
                        if len(hits) >= collect:
                            return ProbeResult(found, False, tuple(hits), _first(strange))
                        break
            if is_dir and not hit:
                stack.append((lit, real))
    return ProbeResult(found, False, tuple(hits), _first(strange))
