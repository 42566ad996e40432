""":class:`LocalSandbox`: a workspace directory on this machine, with path confinement for
file operations and a built (not inherited) environment for commands."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import anyio.abc

from harness_core.sandbox.environment import DEFAULT_ENV_ALLOWLIST, is_secret_env_name
from harness_core.sandbox.paths import Confinement, check_content, check_regular
from harness_core.sandbox.process import build_argv, kill_group, run_process
from harness_core.sandbox.protocol import CommandResult, SandboxView
from harness_core.sandbox.spawn import SpawnedProcess, spawn_process
from harness_core.sandbox.view import restricted_view
from harness_core.tools.output import sanitize_text

__all__ = ["LocalSandbox"]

_OUTPUT_CAP_BYTES: Final = 1_000_000


class LocalSandbox:
    """A workspace directory on this machine: path confinement plus a scrubbed environment.

    Every path a caller gives (relative to the workspace root, or absolute) is resolved
    before any read or write: ``..`` components and symbolic links are followed the way the
    operating system would follow them, and the result must lie inside the root. A path
    that leads outside (an absolute path elsewhere, a ``..`` chain, a link to another
    directory, a linked final component, a dangling link whose target is outside) raises
    :class:`PermissionError` naming the path. Reads and writes then open the resolved path
    one component at a time without following links (``O_NOFOLLOW`` with ``dir_fd``), so a
    link swapped in after the check is refused rather than followed.

    Commands run with the workspace as working directory, in a new process group, with an
    environment built from an allowlist of host variables (:data:`~harness_core.sandbox.DEFAULT_ENV_ALLOWLIST`)
    minus anything that looks like a secret (:data:`~harness_core.sandbox.SECRET_ENV_PATTERNS`), plus ``HOME``
    (see ``home``) and the ``env`` given here and per command.

    This is path confinement for the file operations of tools, not an isolation boundary:
    a shell command can still read and write anything the host user can (``cat /etc/passwd``
    works). Use an OS-level sandbox (a container, bubblewrap, a VM) to confine commands.

    Args:
        root: the workspace directory; it must exist.
        env: extra variables for every command (not filtered: you chose them).
        inherit_env: host variable names passed through (secret-looking names are still
            dropped).
        home: ``HOME`` for commands: a directory, ``"inherit"`` for the host's, or ``None``
            (default) for a private empty directory created on first use outside the
            workspace and deleted by :meth:`stop`.
        default_timeout: seconds a command may run when ``run_command`` gets no timeout.
        max_output_bytes: bytes kept per output stream (stdout, stderr); the rest is
            dropped and counted in a marker.
        shell: the shell that runs string commands (``bash`` when found, else ``sh``).

    Raises:
        NotADirectoryError: ``root`` is not an existing directory.
        ValueError: a non-positive ``default_timeout`` or a negative ``max_output_bytes``.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        env: Mapping[str, str] | None = None,
        inherit_env: Sequence[str] = DEFAULT_ENV_ALLOWLIST,
        home: str | os.PathLike[str] | None = None,
        default_timeout: float = 300.0,
        max_output_bytes: int = _OUTPUT_CAP_BYTES,
        shell: str | None = None,
    ) -> None:
        given = Path(root).expanduser()
        if not given.is_dir():
            raise NotADirectoryError(f"LocalSandbox: workspace root {str(given)!r} is not an existing directory")
        self._paths = Confinement(root=Path(os.path.realpath(given)), given_root=Path(os.path.abspath(given)))
        self._root = self._paths.root
        self._env = dict(env or {})
        self._inherit = tuple(inherit_env)
        self._home_setting = home
        self._private_home: Path | None = None
        if default_timeout <= 0:
            raise ValueError(f"LocalSandbox: default_timeout must be positive, got {default_timeout!r}")
        if max_output_bytes < 0:
            raise ValueError(f"LocalSandbox: max_output_bytes must be >= 0, got {max_output_bytes!r}")
        self.default_timeout = float(default_timeout)
        self.max_output_bytes = int(max_output_bytes)
        self._shell = shell or shutil.which("bash") or "/bin/sh"
        self._processes: set[anyio.abc.Process] = set()
        self._stopped = False

    def __repr__(self) -> str:
        return f"LocalSandbox({str(self._root)!r})"

    # -- paths -------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The workspace root, fully resolved (no symbolic links)."""
        return self._root

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Resolve ``path`` inside the workspace, following ``..`` and links like the OS would.

        Args:
            path: relative to the root, or absolute; ``""`` and ``"."`` mean the root.

        Returns:
            The resolved absolute path (it may not exist yet).

        Raises:
            PermissionError: the path leads outside the workspace (the message names it).
            TypeError: ``path`` is not a ``str`` or ``os.PathLike[str]`` (bytes paths are
                not accepted).
            ValueError: the path contains a NUL character.
            OSError: ``ELOOP`` for a symbolic-link loop.
        """
        return self._paths.resolve(path)

    def relative(self, path: str | os.PathLike[str]) -> str:
        """``path`` resolved and written relative to the root with ``/`` separators (``"."`` for the root)."""
        real = self.resolve(path)
        rel = real.relative_to(self._root).as_posix()
        return rel or "."

    # -- files -------------------------------------------------------------------------

    def read_bytes(self, path: str | os.PathLike[str], *, max_bytes: int | None = None) -> bytes:
        """Read a regular file inside the workspace (at most ``max_bytes`` bytes when given).

        Raises:
            PermissionError: the path leads outside the workspace.
            FileNotFoundError / IsADirectoryError: as the OS reports them.
            NotADirectoryError: a component of the path is a file, not a directory.
            TypeError: ``path`` is not a ``str`` or ``os.PathLike[str]``.
            OSError: ``EINVAL`` for a FIFO, socket or device (never opened for blocking I/O).
        """
        if max_bytes is not None and (not isinstance(max_bytes, int) or isinstance(max_bytes, bool)):
            raise TypeError(f"read_bytes: max_bytes must be an int or None, got {type(max_bytes).__name__}")
        fd = self._paths.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0), real=self.resolve(path))
        check_regular(fd, path)
        with os.fdopen(fd, "rb") as handle:
            return handle.read() if max_bytes is None else handle.read(max_bytes)

    def write_bytes(self, path: str | os.PathLike[str], data: bytes) -> bool:
        """Create or replace a regular file inside the workspace, creating parent directories.

        Returns:
            True when the file was created, False when an existing file was replaced.

        Raises:
            PermissionError: the path leads outside the workspace.
            NotADirectoryError: a component of the path is a file, not a directory.
            TypeError: ``path`` is not a ``str`` or ``os.PathLike[str]``, or ``data`` is not
                bytes-like (``bytes``, ``bytearray``, ``memoryview``).
            OSError: ``EINVAL`` for a FIFO, socket or device.
            RuntimeError: the sandbox was stopped.
        """
        check_content("write_bytes", "data", data, bytes | bytearray | memoryview)
        self._check_running()
        real = self.resolve(path)
        existed = os.path.lexists(real)
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = self._paths.open(path, flags, create_dirs=True, real=real)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a FIFO without a reader
                raise OSError(errno.EINVAL, f"path {os.fspath(path)!r} is not a regular file; refused") from None
            raise
        check_regular(fd, path)
        os.ftruncate(fd, 0)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return not existed

    async def read_text_file(self, path: str) -> str:
        """Read a UTF-8 text file inside the workspace (undecodable bytes replaced).

        Raises:
            PermissionError: the path leads outside the workspace.
            FileNotFoundError / IsADirectoryError / NotADirectoryError: as for
                :meth:`read_bytes`.
            TypeError: ``path`` is not a ``str`` or ``os.PathLike[str]``.
        """
        return sanitize_text(self.read_bytes(path))

    async def write_text_file(self, path: str, content: str) -> None:
        """Create or replace a UTF-8 text file inside the workspace (parents created).

        Raises:
            PermissionError: the path leads outside the workspace.
            NotADirectoryError: a component of the path is a file, not a directory.
            TypeError: ``path`` is not a ``str`` or ``os.PathLike[str]``, or ``content`` is
                not a ``str`` (use :meth:`write_bytes` for bytes).
            RuntimeError: the sandbox was stopped.
        """
        check_content("write_text_file", "content", content, str)
        self.write_bytes(path, content.encode("utf-8", errors="surrogatepass"))

    # -- commands ----------------------------------------------------------------------

    def command_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment a command gets: allowlisted host variables without secrets,
        ``HOME``, the sandbox's ``env``, then ``extra``."""
        env = {
            name: value
            for name in self._inherit
            if (value := os.environ.get(name)) is not None and not is_secret_env_name(name)
        }
        env["HOME"] = str(self._home())
        env["PWD"] = str(self._root)
        env.update(self._env)
        env.update(extra or {})
        return env

    def _home(self) -> Path:
        setting = self._home_setting
        if setting is not None:
            if os.fspath(setting) == "inherit":
                return Path(os.path.expanduser("~"))
            return Path(setting)
        if self._private_home is None:
            self._private_home = Path(tempfile.mkdtemp(prefix="harness-home-"))
            weakref.finalize(self, shutil.rmtree, self._private_home, True)
        return self._private_home

    async def run_command(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run a command with the workspace as working directory.

        Args:
            command: a shell command line (run by ``shell -c``) or an argument list (run
                directly, no shell).
            timeout: seconds before the command's whole process group is killed (default
                ``default_timeout``); the result then has ``timed_out=True`` and
                ``exit_code=None``.
            env: extra variables for this command.

        Returns:
            The exit code and the decoded output of each stream, each cut at
            ``max_output_bytes`` with a marker. Output still held open by background
            processes after the command exits is read for a short grace period only.
            An argument list whose program cannot be started gets the result a shell
            would give: exit code 127 and ``"<program>: command not found"`` on stderr
            when it does not exist, 126 and ``"<program>: permission denied"`` when it is
            not executable (a string command gets the same from the shell itself).

        Raises:
            TypeError: ``command`` is not a ``str`` or a list of ``str`` /
                ``os.PathLike[str]``, or ``timeout`` is not a number.
            ValueError: an empty command or a non-positive timeout.
            RuntimeError: the sandbox was stopped.
            NotADirectoryError: the workspace root no longer exists.
        """
        self._check_running()
        argv = build_argv(command, self._shell)
        if timeout is not None and (not isinstance(timeout, int | float) or isinstance(timeout, bool)):
            raise TypeError(f"run_command: timeout must be a number of seconds or None, got {type(timeout).__name__}")
        limit = self.default_timeout if timeout is None else float(timeout)
        if limit <= 0:
            raise ValueError(f"run_command: timeout must be positive, got {timeout!r}")
        return await run_process(
            argv,
            cwd=self._root,
            env=self.command_env(env),
            limit=limit,
            max_output_bytes=self.max_output_bytes,
            running=self._processes,
            owner=repr(self),
        )

    async def spawn(self, command: str | list[str], *, env: Mapping[str, str] | None = None) -> SpawnedProcess:
        """Start a long-running process in the workspace, with pipes to talk to it.

        Same working directory, environment and process group as :meth:`run_command`, but
        stdin, stdout and stderr are pipes and nothing waits for it: read and write its
        streams, then ``aclose()`` it (or use it as an async context manager). :meth:`stop`
        kills every spawned process still running.

        Args:
            command: a shell command line (``shell -c``) or an argument list.
            env: extra variables for this process.

        Returns:
            The :class:`~harness_core.sandbox.SpawnedProcess`.

        Raises:
            TypeError / ValueError: a malformed command.
            FileNotFoundError / PermissionError: the program cannot be started.
            RuntimeError: the sandbox was stopped.
        """
        self._check_running()
        argv = build_argv(command, self._shell)
        return await spawn_process(argv, cwd=self._root, env=self.command_env(env), running=self._processes)

    def restricted(self) -> SandboxView:
        """A view with only ``root``, ``read_text_file``, ``write_text_file``, ``run_command``
        and ``spawn``; no attribute of it reaches this sandbox (see :func:`restricted_view`)."""
        return restricted_view(self)

    async def stop(self) -> None:
        """Kill commands still running and delete the private ``HOME``; later calls raise."""
        self._stopped = True
        for process in list(self._processes):
            kill_group(process)
        if self._private_home is not None:
            shutil.rmtree(self._private_home, ignore_errors=True)
            self._private_home = None

    def _check_running(self) -> None:
        if self._stopped:
            raise RuntimeError(f"{self!r} was stopped")
