"""Anchor directories of path patterns, and lexical path helpers.

:class:`Bases` holds the workspace root and the home directory, as written and with
symlinks resolved; :func:`normalize` and :func:`relative` are purely lexical (no file
system access).
"""

from __future__ import annotations

import os
import posixpath

import attrs

from ._resolve import case_insensitive

__all__ = ["Bases", "normalize", "relative"]


def normalize(path: str) -> str:
    """``path`` made absolute-clean: ``.``/``..`` folded, duplicate and leading ``//`` removed.

    ``path`` must be absolute. Purely lexical: symlinks are not consulted.
    """
    if "/." not in path and "//" not in path and path[-1:] != "/" and path[:1] == "/":
        return path  # already clean: no empty, `.` or `..` component (the common case)
    out = posixpath.normpath(path)
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    return out


def relative(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` (both normalized absolute), ``""`` for the base itself,
    ``None`` when ``path`` is not below ``base``."""
    if base == "/":
        return path[1:]
    if path == base:
        return ""
    if path.startswith(base) and path[len(base)] == "/":
        return path[len(base) + 1 :]
    return None


@attrs.frozen(eq=False)
class Bases:
    """The directories patterns are anchored to, as written and with symlinks resolved.

    Compared and hashed by identity (C-level, no Python call per cache lookup): the
    engine keeps one per workspace root, and a cache keyed by one holds it, so a key is
    never reused for other directories; two equal ones only share no cache entries.

    Attributes:
        workspace: the workspace root, normalized, and its resolved spelling.
        home: the home directory, normalized, and its resolved spelling.
    """

    workspace: tuple[str, ...]
    home: tuple[str, ...]
    casefold: bool = False
    anchors: tuple[tuple[str, str], ...] = attrs.field(init=False, eq=False, repr=False)
    """``(directory, resolved directory)`` for the workspace root and the home."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "anchors", ((self.workspace[0], self.workspace[-1]), (self.home[0], self.home[-1])))

    @classmethod
    def for_root(cls, workspace_root: str, home: str) -> Bases:
        """Bases for an absolute workspace root and home directory; ``casefold`` when the
        root is on a case-insensitive file system (rules then match regardless of case)."""
        return cls(_both(workspace_root), _both(home), case_insensitive(workspace_root))


def _both(path: str) -> tuple[str, ...]:
    lit = normalize(os.path.abspath(path))
    real = os.path.realpath(lit)
    return (lit,) if real == lit else (lit, real)

