"""Does a path stay in the workspace? One answer for the sandbox and every adapter.

:func:`resolve_like_os` resolves a path the way the kernel walks it for a process whose
working directory is ``cwd``: component by component, each symbolic link replaced by its
target as it is met (so ``jump/../secret.txt`` where ``jump`` is a link goes to the parent
of the link's *target*, not back to the directory holding ``jump``), absolute link targets
restarting at ``/``, at most 40 links (``ELOOP`` beyond, as Linux). ``/proc/self/cwd`` and
``/proc/thread-self/cwd`` are the *runtime's* working directory (``cwd``), not this Python
process's; ``/proc/self/root`` is ``/``; any other ``/proc/self/...`` entry (``fd/3``,
``exe``...) and ``/dev/fd/...`` cannot be resolved for another process and count as outside.
Components that do not exist yet are taken as written (a file about to be created).

:func:`path_in_workspace` / :func:`paths_outside` apply it to a workspace root. The core's
``permission-mode`` policy uses them so that ``allow-edits`` / ``allow-reads`` never cover a
built-in call whose path leads outside the workspace; :class:`~harness_core.LocalSandbox`
uses :func:`resolve_like_os` for its own confinement.

Limits: the answer is about the file system as it is now. A link created after the check
(a race) is not seen here; LocalSandbox closes that gap with ``O_NOFOLLOW`` opens, a
runtime's own tools do not. Hard links are not visible in a path at all (see docs/sandbox.md).
"""

from __future__ import annotations

import collections
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Final

__all__ = ["MAX_SYMLINKS", "path_in_workspace", "paths_outside", "resolve_like_os"]

MAX_SYMLINKS: Final = 40
"""Links followed in one resolution before ``ELOOP`` (Linux's limit)."""

_SELF: Final = ("self", "thread-self")


def _text(path: object) -> str:
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise TypeError(f"path must be a str or an os.PathLike[str], got {type(path).__name__} {path!r}")


def resolve_like_os(path: str | os.PathLike[str], *, cwd: str | os.PathLike[str]) -> Path:
    """``path`` resolved as the OS would for a process working in ``cwd``.

    Args:
        path: relative (to ``cwd``) or absolute.
        cwd: the process's working directory (absolute; resolved the same way).

    Returns:
        An absolute path without links or ``.``/``..`` components where the path exists;
        missing components are kept as written. A ``/proc/self/...`` entry other than
        ``cwd`` and ``root`` is returned unresolved under ``/proc/self`` (never inside a
        workspace).

    Raises:
        OSError: ``ELOOP`` after :data:`MAX_SYMLINKS` links (a loop).
        ValueError: a NUL character, or a relative ``cwd``.
        TypeError: ``path`` is not ``str`` / ``os.PathLike[str]``.
    """
    text, base = _text(path), _text(cwd)
    if "\0" in text or "\0" in base:
        raise ValueError(f"path {text!r} contains a NUL character")
    if not os.path.isabs(base):
        raise ValueError(f"cwd {base!r} is not absolute")
    real_cwd = _walk(base, "/", "/")
    return Path(_walk(text, real_cwd, real_cwd))


def _walk(text: str, start: str, runtime_cwd: str) -> str:
    current = "/" if text.startswith("/") else start
    pending = collections.deque(text.split("/"))
    links = 0
    while pending:
        part = pending.popleft()
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        if current == "/proc" and part in _SELF:
            while pending and pending[0] in ("", "."):
                pending.popleft()
            entry = pending.popleft() if pending else ""
            if entry in ("cwd", "root"):
                current = runtime_cwd if entry == "cwd" else "/"
                continue
            return "/proc/self/" + "/".join([entry, *pending])  # another process's view: unknowable
        candidate = os.path.join(current, part)
        try:
            mode = os.lstat(candidate).st_mode
        except OSError:
            current = candidate  # missing (or unreadable): the rest is taken as written
            continue
        if not stat.S_ISLNK(mode):
            current = candidate
            continue
        links += 1
        if links > MAX_SYMLINKS:
            raise OSError(errno.ELOOP, f"path {text!r} runs into a symbolic-link loop")
        target = os.readlink(candidate)
        if target.startswith("/"):
            current = "/"
        pending.extendleft(reversed(target.split("/")))
    return current


def _inside(real: Path, root: Path) -> bool:
    return real == root or root in real.parents


def path_in_workspace(path: str | os.PathLike[str], workspace: str | os.PathLike[str], *,
                      cwd: str | os.PathLike[str] | None = None) -> bool:
    """True when ``path`` (relative to ``cwd``, default the workspace) resolves inside ``workspace``.

    Fails closed: a link loop, a NUL character or an unknowable ``/proc`` entry is outside.
    """
    try:
        root = resolve_like_os(workspace, cwd="/")
        real = resolve_like_os(path, cwd=cwd if cwd is not None else root)
    except (OSError, ValueError, TypeError):
        return False
    return _inside(real, root)


def paths_outside(paths: Iterable[str], workspace: str | os.PathLike[str], *,
                  cwd: str | os.PathLike[str] | None = None) -> list[str]:
    """The entries of ``paths`` that do not stay in ``workspace`` (see :func:`path_in_workspace`)."""
    return [path for path in paths if not path_in_workspace(path, workspace, cwd=cwd)]
