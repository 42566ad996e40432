"""The sandbox protocols: :class:`SandboxView` (what host tools get), :class:`Sandbox` (what
the host holds) and :class:`CommandResult` (what a command returns)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import attrs

if TYPE_CHECKING:
    from harness_core.sandbox.spawn import SandboxProcess

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

    Paths are relative to the workspace root (absolute paths must stay inside it). There is
    no append and no delete: read a file, then write it whole.
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
    """A session sandbox: a :class:`SandboxView` plus ``spawn`` and lifecycle methods only the host uses."""

    async def spawn(self, command: str | list[str], *, env: Mapping[str, str] | None = None) -> SandboxProcess:
        """Start a long-running process in the workspace with piped stdin/stdout/stderr;
        ``stop`` kills what is still running (see :class:`~harness_core.sandbox.SandboxProcess`)."""
        ...

    def resolve(self, path: str) -> Path:
        """Resolve ``path`` inside the workspace; raises ``PermissionError`` when it escapes."""
        ...

    def restricted(self) -> SandboxView:
        """The restricted view handed to host tools (see :func:`restricted_view`)."""
        ...

    async def stop(self) -> None:
        """Release the sandbox's resources."""
        ...
