"""The built-in tools' view of the session workspace: confined paths, bounded walks.

:class:`Workspace` wraps a :class:`~harness_core.sandbox.Sandbox` (normally a
:class:`~harness_core.sandbox.LocalSandbox`): every path goes through ``sandbox.resolve``
first, so absolute paths, ``..`` chains and symbolic links that lead outside the workspace
are refused with :class:`PermissionError` before anything is read or written. Walks never
follow linked directories and skip the usual generated directories
(:data:`DEFAULT_IGNORED_DIRS`) and what the workspace's top-level ``.gitignore`` ignores.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import attrs
import pathspec

from harness_core import Sandbox


@runtime_checkable
class ConfinedBytes(Protocol):
    """A sandbox with link-safe byte reads and writes (``LocalSandbox``, ``BwrapSandbox``):
    the resolved path is opened without following links swapped in after the check."""

    def read_bytes(self, path: str, *, max_bytes: int | None = None) -> bytes: ...

    def write_bytes(self, path: str, data: bytes) -> bool: ...

__all__ = ["DEFAULT_IGNORED_DIRS", "Workspace"]

DEFAULT_IGNORED_DIRS: Final[frozenset[str]] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)
"""Directory names that searches (grep, glob) and file-change detection skip below the
starting directory."""


@attrs.define
class Workspace:
    """Path confinement and file access for built-in tools.

    Args:
        sandbox: the session sandbox; its ``resolve`` is the single confinement check.
        ignored_dirs: directory names skipped by :meth:`walk`.
        use_gitignore: also skip what the top-level ``.gitignore`` ignores.
    """

    sandbox: Sandbox
    ignored_dirs: frozenset[str] = DEFAULT_IGNORED_DIRS
    use_gitignore: bool = True
    _gitignore: pathspec.PathSpec[Any] | None = attrs.field(default=None, init=False)
    _gitignore_stamp: tuple[int, int] | None = attrs.field(default=None, init=False)

    @property
    def root(self) -> Path:
        """The workspace root (resolved)."""
        return Path(os.path.realpath(self.sandbox.root))

    def resolve(self, path: str) -> Path:
        """Resolve a tool's path argument inside the workspace.

        Raises:
            PermissionError: the path leads outside the workspace.
            ValueError: an empty path.
        """
        if not path.strip():
            raise ValueError("the path is empty")
        return self.sandbox.resolve(path)

    def display(self, real: Path) -> str:
        """``real`` relative to the root with ``/`` separators (``"."`` for the root)."""
        try:
            rel = real.relative_to(self.root).as_posix()
        except ValueError:
            return str(real)
        return rel or "."

    def read_bytes(self, path: str, *, max_bytes: int | None = None) -> bytes:
        """Read a file inside the workspace (link swaps refused with a :class:`ConfinedBytes` sandbox)."""
        if isinstance(self.sandbox, ConfinedBytes):
            return self.sandbox.read_bytes(path, max_bytes=max_bytes)
        real = self.resolve(path)
        with open(real, "rb") as handle:
            return handle.read() if max_bytes is None else handle.read(max_bytes)

    def write_bytes(self, path: str, data: bytes) -> bool:
        """Create or replace a file inside the workspace; True when it was created."""
        if isinstance(self.sandbox, ConfinedBytes):
            return self.sandbox.write_bytes(path, data)
        real = self.resolve(path)
        created = not os.path.lexists(real)
        real.parent.mkdir(parents=True, exist_ok=True)
        real.write_bytes(data)
        return created

    def is_ignored(self, real: Path, *, is_dir: bool) -> bool:
        """True when ``real`` is skipped by walks (ignored directory name or ``.gitignore``)."""
        if is_dir and real.name in self.ignored_dirs:
            return True
        spec = self._gitignore_spec()
        if spec is None:
            return False
        rel = self.display(real)
        if rel == ".":
            return False
        return spec.match_file(rel + "/" if is_dir else rel)

    def _gitignore_spec(self) -> pathspec.PathSpec[Any] | None:
        if not self.use_gitignore:
            return None
        path = self.root / ".gitignore"
        try:
            stat = path.stat()
        except OSError:
            self._gitignore, self._gitignore_stamp = None, None
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._gitignore_stamp:
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                self._gitignore = pathspec.GitIgnoreSpec.from_lines(lines)
            except (OSError, ValueError):
                self._gitignore = None
            self._gitignore_stamp = stamp
        return self._gitignore

    def list_files(self, start: Path, *, max_entries: int) -> tuple[list[Path], bool]:
        """Files under ``start`` (or ``start`` itself when it is a file), sorted per
        directory, never following linked directories, skipping ignored ones.

        Linked files are listed only when their target stays inside the workspace.

        Returns:
            ``(files, truncated)``: ``truncated`` is True when more than ``max_entries``
            directory entries were seen and the walk stopped early.
        """
        if start.is_file():
            return [start], False
        files: list[Path] = []
        seen = 0
        for directory, dirnames, filenames in os.walk(start, followlinks=False):
            base = Path(directory)
            dirnames[:] = sorted(
                name for name in dirnames
                if not (base / name).is_symlink() and not self.is_ignored(base / name, is_dir=True)
            )
            for name in sorted(filenames):
                seen += 1
                if seen > max_entries:
                    return files, True
                candidate = base / name
                if candidate.is_symlink():
                    try:
                        self.resolve(self.display(candidate))
                    except (OSError, ValueError):
                        continue
                    if not candidate.is_file():
                        continue
                if self.is_ignored(candidate, is_dir=False):
                    continue
                files.append(candidate)
        return files, False
