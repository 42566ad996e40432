"""The restricted view of a :class:`~harness_sandbox_bwrap.BwrapSandbox`, and the command
wrapping both share.

:class:`BwrapView` is what host tools get: ``root``, ``read_text_file``,
``write_text_file`` and ``run_command``. It holds the composed ``LocalSandbox``'s own
restricted view (file operations confined to the workspace) and the immutable ``bwrap``
command prefix, and nothing else: no reference to the ``BwrapSandbox``, no ``stop``, no
policy to change (frozen, slotted, tuple-valued). Its commands go to a
command server of its own (:mod:`harness_sandbox_bwrap.server`: its own long-lived
bubblewraps, a snapshot of the environment, never the sandbox's servers or runners), or
start one ``bwrap`` each without one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Protocol

import attrs

from harness_core import CommandResult, SandboxProcess, SandboxView

__all__ = ["BwrapView", "CommandRunner", "run_wrapped", "wrap_command"]


class CommandRunner(Protocol):
    """Runs a command inside the sandbox (:class:`harness_sandbox_bwrap.server.Served`)."""

    async def run(self, command: object, *, timeout: float | None,
                  env: Mapping[str, str] | None) -> CommandResult: ...

_EXEC_FAILED: Final = re.compile(r"^bwrap: execvp (?P<program>.*?): (?P<reason>.*)$", re.MULTILINE)


def wrap_command(prefix: tuple[str, ...], shell: str, command: object) -> list[str]:
    """``prefix`` followed by the argv that runs ``command`` inside the sandbox.

    Args:
        prefix: the ``bwrap ... --`` arguments (:func:`~harness_sandbox_bwrap.policy.bwrap_prefix`).
        shell: the shell (inside the sandbox) that runs a string command with ``-c``.
        command: a shell command line, or a list of program and arguments.

    Raises:
        TypeError: ``command`` is neither a ``str`` nor a list of ``str`` / paths.
        ValueError: an empty command.
    """
    if isinstance(command, str):
        if not command.strip():
            raise ValueError("run_command: the command is empty")
        return [*prefix, shell, "-c", command]
    if not isinstance(command, list | tuple):
        raise TypeError(
            f"run_command: command must be a str (a shell command line) or a list of str "
            f"(program and arguments), got {type(command).__name__}"
        )
    if not command:
        raise ValueError("run_command: the argument list is empty")
    argv: list[str] = []
    for index, arg in enumerate(command):
        text = os.fspath(arg) if isinstance(arg, str | os.PathLike) else None
        if not isinstance(text, str):
            raise TypeError(f"run_command: command[{index}] must be a str, got {type(arg).__name__} {arg!r}")
        argv.append(text)
    return [*prefix, *argv]


async def run_wrapped(
    runner: SandboxView,
    prefix: tuple[str, ...],
    shell: str,
    command: str | list[str],
    *,
    timeout: float | None,
    env: Mapping[str, str] | None,
) -> CommandResult:
    """Run ``command`` through ``runner`` (a ``LocalSandbox`` or its view) inside bwrap.

    A program bwrap could not start inside the sandbox is reported the way a shell
    reports it: exit code 127 (not found) or 126 (not executable) and
    ``"<program>: <reason>"`` on stderr, instead of bwrap's own exit code 1.
    """
    result = await runner.run_command(wrap_command(prefix, shell, command), timeout=timeout, env=env)
    if result.exit_code == 1 and (failed := _EXEC_FAILED.search(result.stderr)) is not None:
        reason = failed["reason"]
        code = 127 if "No such file" in reason else 126
        return CommandResult(exit_code=code, stdout=result.stdout,
                             stderr=f"{failed['program']}: {reason}\n", timed_out=result.timed_out)
    return result


@attrs.frozen(slots=True)
class BwrapView:
    """The :class:`harness_core.SandboxView` of a bubblewrap sandbox, for host tools.

    Reads and writes go to the workspace only; commands run inside the same sandbox, under
    the same policy. There is no way through it to stop the sandbox, destroy it or change
    its mounts or network: the prefix is an immutable tuple, the object is frozen.
    """

    _files: SandboxView
    _prefix: tuple[str, ...]
    _shell: str
    _served: CommandRunner | None = None

    def __repr__(self) -> str:
        return f"BwrapView({str(self._files.root)!r})"

    @property
    def root(self) -> Path:
        """The workspace root."""
        return self._files.root

    async def read_text_file(self, path: str) -> str:
        """Read a text file inside the workspace; ``PermissionError`` outside it."""
        return await self._files.read_text_file(path)

    async def write_text_file(self, path: str, content: str) -> None:
        """Create or replace a text file inside the workspace."""
        await self._files.write_text_file(path, content)

    async def run_command(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``command`` inside the sandbox (see :meth:`BwrapSandbox.run_command`)."""
        if self._served is not None:
            return await self._served.run(command, timeout=timeout, env=env)
        return await run_wrapped(self._files, self._prefix, self._shell, command, timeout=timeout, env=env)

    async def spawn(self, command: str | list[str], *, env: Mapping[str, str] | None = None) -> SandboxProcess:
        """Start a long-running process inside the sandbox (see :meth:`BwrapSandbox.spawn`)."""
        spawner = getattr(self._files, "spawn", None)
        if spawner is None:  # pragma: no cover - LocalSandbox views always spawn
            raise NotImplementedError("this sandbox view cannot spawn")
        process: SandboxProcess = await spawner(wrap_command(self._prefix, self._shell, command), env=env)
        return process
