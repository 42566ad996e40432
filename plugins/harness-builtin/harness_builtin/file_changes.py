"""Detecting what a shell command did to the workspace.

:func:`snapshot` records every file's size and modification time (and, for small files,
a content hash); :func:`diff` compares two snapshots and lists files created, modified
and deleted, with workspace-relative ``/`` paths. A file whose time changed but whose
content hash did not (``touch``) is not reported. Snapshots are bounded: at most
``max_files`` files, hashes only for files up to ``hash_max_bytes`` and for at most
``hash_budget_bytes`` bytes in total; ignored directories (``.git``, ``node_modules``,
``__pycache__``...) are skipped, so bookkeeping such as byte-code caches is not reported.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import attrs

from harness_core import ToolOutput

from .workspace import DEFAULT_IGNORED_DIRS

__all__ = ["ChangedFilesOutput", "FileChange", "Snapshot", "diff", "snapshot"]

ChangeKind = Literal["created", "modified", "deleted"]


@attrs.frozen
class FileChange:
    """One file a command changed: workspace-relative ``path`` and ``kind``."""

    path: str
    kind: ChangeKind

    def to_json(self) -> dict[str, str]:
        """``{"path": ..., "kind": ...}``."""
        return {"path": self.path, "kind": self.kind}


@attrs.frozen
class Snapshot:
    """File states by relative path: ``(size, mtime_ns, sha256 or None)``.

    ``complete`` is False when the file bound was reached (changes beyond it are missed).
    """

    files: dict[str, tuple[int, int, str | None]]
    complete: bool = True


def _hash(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def snapshot(
    root: Path,
    *,
    ignored_dirs: Iterable[str] = DEFAULT_IGNORED_DIRS,
    max_files: int = 20_000,
    hash_max_bytes: int = 256 * 1024,
    hash_budget_bytes: int = 32 * 1024 * 1024,
) -> Snapshot:
    """Record the workspace's files (see the module docs for the bounds)."""
    ignored = frozenset(ignored_dirs)
    files: dict[str, tuple[int, int, str | None]] = {}
    budget = hash_budget_bytes
    base = str(root)
    for directory, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in ignored and not os.path.islink(os.path.join(directory, d))]
        rel_dir = os.path.relpath(directory, base)
        for name in filenames:
            if len(files) >= max_files:
                return Snapshot(files, complete=False)
            full = os.path.join(directory, name)
            try:
                stat = os.lstat(full)
            except OSError:
                continue
            digest: str | None = None
            if stat.st_size <= hash_max_bytes and budget >= stat.st_size and not os.path.islink(full):
                digest = _hash(full)
                budget -= stat.st_size
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            files[rel] = (stat.st_size, stat.st_mtime_ns, digest)
    return Snapshot(files)


def diff(before: Snapshot, after: Snapshot) -> list[FileChange]:
    """Files created, modified and deleted between two snapshots, sorted by path."""
    changes: list[FileChange] = []
    for path, state in after.files.items():
        old = before.files.get(path)
        if old is None:
            changes.append(FileChange(path, "created"))
        elif old != state:
            size, _, digest = state
            old_size, _, old_digest = old
            if size == old_size and digest is not None and digest == old_digest:
                continue
            changes.append(FileChange(path, "modified"))
    changes.extend(FileChange(path, "deleted") for path in before.files if path not in after.files)
    return sorted(changes, key=lambda change: change.path)


@attrs.frozen
class ChangedFilesOutput(ToolOutput):
    """A ``bash`` call's output with the workspace changes it made (``FileChange.to_json()``
    mappings), so that a ``harness_execute_builtin`` wrapper that records the output (a
    durable step) records the changes too, and a replay reports them again."""

    changes: tuple[dict[str, str], ...] = attrs.field(default=(), kw_only=True)
