"""Sandboxes: where a session's files live and its commands run.

:class:`Sandbox` is the protocol a session's sandbox implements; :class:`SandboxView` is the
restricted view handed to host tools (read, write, run commands; no way to stop the sandbox
or change its policy). :class:`LocalSandbox` confines paths to a workspace directory on
this machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

import attrs

__all__ = ["CommandResult", "Sandbox", "SandboxView"]


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
