"""Path confinement for :class:`~harness_core.sandbox.LocalSandbox`: resolve a path inside a
workspace root, then open it one component at a time without following links.

The resolution (:func:`~harness_core.sandbox.confine.resolve_like_os`) follows ``..`` and
symbolic links the way the operating system would, absolute paths included
(``<root>/jump/../secret.txt`` goes where ``jump`` leads); the open (``O_NOFOLLOW`` with
``dir_fd``) refuses a link swapped in after the check (TOCTOU), and :func:`check_regular`
refuses a regular file with more than one hard link (its other names may be outside).
"""

from __future__ import annotations

import errno
import os
import stat
import types
from pathlib import Path

import attrs

from harness_core.sandbox.confine import resolve_like_os

__all__ = ["Confinement", "check_content", "check_regular", "path_text"]


def path_text(path: object) -> str:
    """``path`` as text; bytes (and anything else) raise a TypeError saying what is expected."""
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise TypeError(f"LocalSandbox: path must be a str or an os.PathLike[str], got {type(path).__name__} {path!r}")


def check_content(method: str, name: str, value: object, expected: type | types.UnionType) -> None:
    """Raise a TypeError naming the argument when ``value`` is not of the expected type."""
    if isinstance(value, expected):
        return
    if expected is str:
        wanted, hint = "str", " (use write_bytes for bytes)" if isinstance(value, bytes | bytearray) else ""
    else:
        wanted, hint = "bytes", " (use write_text_file for str)" if isinstance(value, str) else ""
    raise TypeError(f"{method}: {name} must be {wanted}, got {type(value).__name__}{hint}")


def check_regular(fd: int, path: str | os.PathLike[str]) -> None:
    """Make ``fd`` blocking when it is a regular file with one link; otherwise close it and raise.

    Raises:
        PermissionError: a regular file with more than one hard link (checked on the open
            descriptor, so a link made between resolving and opening is seen).
        IsADirectoryError: ``fd`` is a directory.
        OSError: ``EINVAL`` for a FIFO, socket or device.
    """
    info = os.fstat(fd)
    mode = info.st_mode
    if stat.S_ISREG(mode) and info.st_nlink > 1:
        os.close(fd)
        raise PermissionError(
            errno.EACCES,
            f"path {os.fspath(path)!r} is a file with {info.st_nlink} hard links; its other names may lie "
            "outside the workspace, so it is neither read nor written (refused)",
        )
    if stat.S_ISREG(mode):
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"path {os.fspath(path)!r} is a directory")
    raise OSError(errno.EINVAL, f"path {os.fspath(path)!r} is not a regular file (a FIFO, socket or device); refused")


def _changed(path: str | os.PathLike[str]) -> PermissionError:
    return PermissionError(
        errno.EACCES,
        f"path {os.fspath(path)!r} changed into a symbolic link while it was being opened; refused",
    )


@attrs.frozen
class Confinement:
    """Paths confined to a workspace root.

    Attributes:
        root: the root, fully resolved (no symbolic links).
        given_root: the root as given (absolute, links kept): absolute paths spelled through
            it are accepted too.
    """

    root: Path
    given_root: Path

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Resolve ``path`` inside the root (see ``LocalSandbox.resolve`` for the errors)."""
        text = path_text(path)
        if "\0" in text:
            raise ValueError(f"path {text!r} contains a NUL character")
        candidate = Path(text) if Path(text).is_absolute() else self.root / text
        try:
            real = resolve_like_os(text, cwd=self.root)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(errno.ELOOP, f"path {text!r} runs into a symbolic-link loop") from None
            raise
        if real != self.root and self.root not in real.parents:
            raise PermissionError(
                errno.EACCES,
                f"path {text!r} leads outside the workspace {str(self.root)!r} "
                f"(it resolves to {str(real)!r}{self._link_note(candidate)})",
            )
        return real

    def _link_note(self, candidate: Path) -> str:
        probe = self.root
        try:
            parts = candidate.relative_to(self.root).parts
        except ValueError:
            return ""
        for part in parts:
            probe = probe / part
            if part != ".." and probe.is_symlink():
                return f" through the symbolic link {str(probe.relative_to(self.root))!r}"
        return ""

    def open(self, path: str | os.PathLike[str], flags: int, *, create_dirs: bool = False,
             real: Path | None = None) -> int:
        """Open ``path`` (already resolved to ``real`` when given) without following links.

        Returns:
            A file descriptor the caller owns.

        Raises:
            PermissionError: the path escapes, or changed into a link while being opened.
            IsADirectoryError: the path is the root.
            NotADirectoryError: a component of the path is a file.
        """
        real = self.resolve(path) if real is None else real
        parts = real.relative_to(self.root).parts
        if not parts:
            raise IsADirectoryError(errno.EISDIR, f"path {os.fspath(path)!r} is the workspace root directory")
        if os.open not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):  # pragma: no cover - Windows
            if create_dirs:
                real.parent.mkdir(parents=True, exist_ok=True)
            return os.open(real, flags, 0o666)
        directory_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for index, part in enumerate(parts[:-1]):
                try:
                    next_fd = os.open(part, directory_flags, dir_fd=fd)
                except FileNotFoundError:
                    if not create_dirs:
                        raise
                    os.mkdir(part, 0o777, dir_fd=fd)
                    next_fd = os.open(part, directory_flags, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                        raise _component_error(path, Path(*parts[: index + 1]), fd) from None
                    raise
                os.close(fd)
                fd = next_fd
            try:
                return os.open(parts[-1], flags | os.O_NOFOLLOW, 0o666, dir_fd=fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise _changed(path) from None
                raise
        finally:
            os.close(fd)


def _component_error(path: str | os.PathLike[str], prefix: Path, dir_fd: int) -> OSError:
    """Why the directory component ``prefix`` (relative to the root) of ``path`` could not
    be opened: a file where a directory should be, or a link swapped in."""
    try:
        mode = os.stat(prefix.name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return _changed(path)
    if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
        return _changed(path)
    return NotADirectoryError(
        errno.ENOTDIR, f"path {os.fspath(path)!r}: a component of the path ({prefix.as_posix()!r}) is not a directory"
    )
