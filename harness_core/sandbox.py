"""Sandboxes: where a session's files live and its commands run.

:class:`Sandbox` is the protocol a session's sandbox implements; :class:`SandboxView` is the
restricted view handed to host tools (read, write, run commands; no way to stop the sandbox
or change its policy). :class:`LocalSandbox` confines paths to a workspace directory on
this machine.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import types
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

import anyio
import anyio.abc
import attrs

from harness_core.tools.output import sanitize_text

__all__ = [
    "DEFAULT_ENV_ALLOWLIST",
    "SECRET_ENV_PATTERNS",
    "CommandResult",
    "LocalSandbox",
    "Sandbox",
    "SandboxView",
    "is_secret_env_name",
]


@attrs.frozen
class CommandResult:
    """The outcome of a command run in a sandbox.

    Attributes:
        exit_code: the process exit status; ``None`` when it was killed at its timeout.
        stdout / stderr: decoded output (undecodable bytes replaced), possibly cut.
        timed_out: the command passed its timeout and was killed.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


@runtime_checkable
class SandboxView(Protocol):
    """What a host tool may do with the session sandbox.

    Paths are relative to the workspace root (absolute paths must stay inside it).
    """

    @property
    def root(self) -> Path:
        """The workspace root directory."""
        ...

    async def read_text_file(self, path: str) -> str:
        """Read a text file inside the workspace. Raises ``PermissionError`` outside it."""
        ...

    async def write_text_file(self, path: str, content: str) -> None:
        """Create or replace a text file inside the workspace."""
        ...

    async def run_command(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run a command with the workspace as working directory; ``timeout`` in seconds."""
        ...


@runtime_checkable
class Sandbox(SandboxView, Protocol):
    """A session sandbox: a :class:`SandboxView` plus lifecycle methods only the host uses."""

    def resolve(self, path: str) -> Path:
        """Resolve ``path`` inside the workspace; raises ``PermissionError`` when it escapes."""
        ...

    def restricted(self) -> SandboxView:
        """The restricted view handed to host tools."""
        ...

    async def stop(self) -> None:
        """Release the sandbox's resources."""
        ...


# ---------------------------------------------------------------------------------------
# LocalSandbox
# ---------------------------------------------------------------------------------------

DEFAULT_ENV_ALLOWLIST: Final[tuple[str, ...]] = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "VIRTUAL_ENV",
    "SYSTEMROOT",
    "COMSPEC",
    "PATHEXT",
)
"""Host environment variables a :class:`LocalSandbox` passes to commands by default.

Everything else of the host environment is left out; ``HOME`` is replaced (see
:class:`LocalSandbox`)."""

SECRET_ENV_PATTERNS: Final[tuple[str, ...]] = (
    "*_API_KEY",
    "*_APIKEY",
    "*_TOKEN",
    "*_TOKEN_*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    "*_PRIVATE_KEY",
    "*_ACCESS_KEY*",
    "AWS_*",
    "AZURE_*",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GH_*",
    "GITHUB_*",
    "SSH_AUTH_SOCK",
    "NPM_CONFIG__AUTH*",
)
"""Name patterns (``fnmatch``, case-insensitive) never inherited from the host, even when
allowlisted: API keys, tokens, secrets, passwords, cloud credentials, the SSH agent."""

_OUTPUT_CAP_BYTES: Final = 1_000_000
_PIPE_GRACE_SECONDS: Final = 0.5
_READ_CHUNK: Final = 65_536


def is_secret_env_name(name: str) -> bool:
    """True when ``name`` matches one of :data:`SECRET_ENV_PATTERNS` (case-insensitive)."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_ENV_PATTERNS)


class _CappedBuffer:
    """Collects a stream's bytes up to ``cap``; counts what it drops."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = sanitize_text(bytes(self.data))
        if self.dropped:
            text += f"\n[output cut: {self.dropped} more bytes not kept]"
        return text


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
    environment built from an allowlist of host variables (:data:`DEFAULT_ENV_ALLOWLIST`)
    minus anything that looks like a secret (:data:`SECRET_ENV_PATTERNS`), plus ``HOME``
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
        self._given_root = Path(os.path.abspath(given))
        self._root = Path(os.path.realpath(given))
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
        text = _path_text(path)
        if "\0" in text:
            raise ValueError(f"path {text!r} contains a NUL character")
        candidate = Path(text)
        if candidate.is_absolute():
            lexical = Path(os.path.normpath(candidate))
            for base in (self._root, self._given_root):
                if lexical == base or base in lexical.parents:
                    candidate = self._root / lexical.relative_to(base)
                    break
            else:
                raise PermissionError(
                    errno.EACCES, f"path {text!r} is outside the workspace {str(self._root)!r}"
                )
        else:
            candidate = self._root / candidate
        try:
            real = Path(os.path.realpath(candidate, strict=True))
        except FileNotFoundError:
            real = Path(os.path.realpath(candidate))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(errno.ELOOP, f"path {text!r} runs into a symbolic-link loop") from None
            real = Path(os.path.realpath(candidate))
        if real != self._root and self._root not in real.parents:
            raise PermissionError(
                errno.EACCES,
                f"path {text!r} leads outside the workspace {str(self._root)!r} "
                f"(it resolves to {str(real)!r}{self._link_note(candidate)})",
            )
        return real

    def _link_note(self, candidate: Path) -> str:
        probe = self._root
        try:
            parts = candidate.relative_to(self._root).parts
        except ValueError:
            return ""
        for part in parts:
            probe = probe / part
            if part != ".." and probe.is_symlink():
                return f" through the symbolic link {str(probe.relative_to(self._root))!r}"
        return ""

    def relative(self, path: str | os.PathLike[str]) -> str:
        """``path`` resolved and written relative to the root with ``/`` separators (``"."`` for the root)."""
        real = self.resolve(path)
        rel = real.relative_to(self._root).as_posix()
        return rel or "."

    def _open(self, path: str | os.PathLike[str], flags: int, *, create_dirs: bool = False,
              real: Path | None = None) -> int:
        real = self.resolve(path) if real is None else real
        parts = real.relative_to(self._root).parts
        if not parts:
            raise IsADirectoryError(errno.EISDIR, f"path {os.fspath(path)!r} is the workspace root directory")
        if os.open not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):  # pragma: no cover - Windows
            if create_dirs:
                real.parent.mkdir(parents=True, exist_ok=True)
            return os.open(real, flags, 0o666)
        directory_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
        fd = os.open(self._root, os.O_RDONLY | os.O_DIRECTORY)
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
                        raise self._component_error(path, Path(*parts[: index + 1]), fd) from None
                    raise
                os.close(fd)
                fd = next_fd
            try:
                return os.open(parts[-1], flags | os.O_NOFOLLOW, 0o666, dir_fd=fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise self._changed(path) from None
                raise
        finally:
            os.close(fd)

    def _component_error(self, path: str | os.PathLike[str], prefix: Path, dir_fd: int) -> OSError:
        """Why the directory component ``prefix`` (relative to the root) of ``path`` could
        not be opened: a file where a directory should be, or a link swapped in."""
        try:
            mode = os.stat(prefix.name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            return self._changed(path)
        if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
            return self._changed(path)
        return NotADirectoryError(
            errno.ENOTDIR, f"path {os.fspath(path)!r}: a component of the path ({prefix.as_posix()!r}) is not a directory"
        )

    def _changed(self, path: str | os.PathLike[str]) -> PermissionError:
        return PermissionError(
            errno.EACCES,
            f"path {os.fspath(path)!r} changed into a symbolic link while it was being opened; refused",
        )

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
        fd = self._open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        self._check_regular(fd, path)
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
        """
        _check_content("write_bytes", "data", data, bytes | bytearray | memoryview)
        self._check_running()
        real = self.resolve(path)
        existed = os.path.lexists(real)
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = self._open(path, flags, create_dirs=True, real=real)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a FIFO without a reader
                raise OSError(errno.EINVAL, f"path {os.fspath(path)!r} is not a regular file; refused") from None
            raise
        self._check_regular(fd, path)
        os.ftruncate(fd, 0)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return not existed

    @staticmethod
    def _check_regular(fd: int, path: str | os.PathLike[str]) -> None:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            if hasattr(os, "O_NONBLOCK"):
                os.set_blocking(fd, True)
            return
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, f"path {os.fspath(path)!r} is a directory")
        raise OSError(errno.EINVAL, f"path {os.fspath(path)!r} is not a regular file (a FIFO, socket or device); refused")

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
        """
        _check_content("write_text_file", "content", content, str)
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
        """
        self._check_running()
        argv = self._argv(command)
        if timeout is not None and (not isinstance(timeout, int | float) or isinstance(timeout, bool)):
            raise TypeError(f"run_command: timeout must be a number of seconds or None, got {type(timeout).__name__}")
        limit = self.default_timeout if timeout is None else float(timeout)
        if limit <= 0:
            raise ValueError(f"run_command: timeout must be positive, got {timeout!r}")
        stdout = _CappedBuffer(self.max_output_bytes)
        stderr = _CappedBuffer(self.max_output_bytes)
        try:
            process = await anyio.open_process(
                argv,
                cwd=self._root,
                env=self.command_env(env),
                stdin=subprocess.DEVNULL,
                start_new_session=sys.platform != "win32",
            )
        except (FileNotFoundError, PermissionError) as exc:
            if not self._root.is_dir():
                raise NotADirectoryError(
                    errno.ENOTDIR, f"{self!r}: the workspace root no longer exists"
                ) from None
            if isinstance(exc, FileNotFoundError):
                return CommandResult(exit_code=127, stdout="", stderr=f"{argv[0]}: command not found\n")
            return CommandResult(exit_code=126, stdout="", stderr=f"{argv[0]}: permission denied\n")
        self._processes.add(process)
        timed_out = False
        try:
            async with anyio.create_task_group() as group:
                drained = anyio.Event()
                group.start_soon(_read_both, process, stdout, stderr, drained)
                with anyio.move_on_after(limit) as scope:
                    await process.wait()
                if scope.cancelled_caught:
                    timed_out = True
                    _kill_group(process)
                    await process.wait()
                with anyio.move_on_after(_PIPE_GRACE_SECONDS):
                    await drained.wait()
                group.cancel_scope.cancel()
        finally:
            self._processes.discard(process)
            if process.returncode is None:
                _kill_group(process)
                with anyio.CancelScope(shield=True):
                    await process.wait()
            with anyio.CancelScope(shield=True):
                await process.aclose()
        return CommandResult(
            exit_code=None if timed_out else process.returncode,
            stdout=stdout.text(),
            stderr=stderr.text(),
            timed_out=timed_out,
        )

    def _argv(self, command: object) -> list[str]:
        if isinstance(command, str):
            if not command.strip():
                raise ValueError("run_command: the command is empty")
            return [self._shell, "-c", command]
        if not isinstance(command, list | tuple):
            raise TypeError(
                f"run_command: command must be a str (a shell command line) or a list of str "
                f"(program and arguments), got {type(command).__name__}"
            )
        if not command:
            raise ValueError("run_command: the argument list is empty")
        argv: list[str] = []
        for index, arg in enumerate(command):
            try:
                argv.append(_path_text(arg))
            except TypeError:
                raise TypeError(
                    f"run_command: command[{index}] must be a str, got {type(arg).__name__} {arg!r}"
                ) from None
        return argv

    def restricted(self) -> SandboxView:
        """A view with only ``root``, ``read_text_file``, ``write_text_file`` and ``run_command``."""
        return _RestrictedView(self)

    async def stop(self) -> None:
        """Kill commands still running and delete the private ``HOME``; later calls raise."""
        self._stopped = True
        for process in list(self._processes):
            _kill_group(process)
        if self._private_home is not None:
            shutil.rmtree(self._private_home, ignore_errors=True)
            self._private_home = None

    def _check_running(self) -> None:
        if self._stopped:
            raise RuntimeError(f"{self!r} was stopped")


def _check_content(method: str, name: str, value: object, expected: type | types.UnionType) -> None:
    """A TypeError naming the argument when ``value`` is not of the expected type."""
    if isinstance(value, expected):
        return
    if expected is str:
        wanted, hint = "str", " (use write_bytes for bytes)" if isinstance(value, bytes | bytearray) else ""
    else:
        wanted, hint = "bytes", " (use write_text_file for str)" if isinstance(value, str) else ""
    raise TypeError(f"{method}: {name} must be {wanted}, got {type(value).__name__}{hint}")


def _path_text(path: object) -> str:
    """``path`` as text; bytes (and anything else) raise a TypeError saying what is expected."""
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise TypeError(f"LocalSandbox: path must be a str or an os.PathLike[str], got {type(path).__name__} {path!r}")


async def _pump(stream: anyio.abc.ByteReceiveStream | None, buffer: _CappedBuffer) -> None:
    if stream is None:  # pragma: no cover - pipes are always requested
        return
    try:
        while True:
            buffer.add(await stream.receive(_READ_CHUNK))
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return


async def _read_both(
    process: anyio.abc.Process, stdout: _CappedBuffer, stderr: _CappedBuffer, drained: anyio.Event
) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_pump, process.stdout, stdout)
        group.start_soon(_pump, process.stderr, stderr)
    drained.set()


def _kill_group(process: anyio.abc.Process) -> None:
    if process.returncode is not None:
        return
    try:
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover
            process.kill()
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()


@attrs.frozen
class _RestrictedView:
    """The :class:`SandboxView` handed to host tools: no ``stop``, no ``resolve``."""

    _sandbox: LocalSandbox

    @property
    def root(self) -> Path:
        return self._sandbox.root

    async def read_text_file(self, path: str) -> str:
        return await self._sandbox.read_text_file(path)

    async def write_text_file(self, path: str, content: str) -> None:
        await self._sandbox.write_text_file(path, content)

    async def run_command(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        return await self._sandbox.run_command(command, timeout=timeout, env=env)
