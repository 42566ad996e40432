"""``BwrapSandbox``: a workspace whose commands run inside bubblewrap.

File operations (``read_text_file``, ``write_text_file``, ``resolve``, ``read_bytes``,
``write_bytes``) are done on the host by a composed :class:`harness_core.LocalSandbox`,
which confines every path to the workspace (``..`` and links resolved, links swapped in
refused). Commands (``run_command``) run inside ``bwrap`` under the policy
(:mod:`harness_sandbox_bwrap.policy`), so what they can see and reach is the policy's, not
the host user's: through one long-lived bubblewrap and its command server
(:mod:`harness_sandbox_bwrap.server`), or one ``bwrap`` each via the ``LocalSandbox``
(process group, timeout, output caps, scrubbed environment) when that is off.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness_core import CommandResult, ConfinedLaunch, LocalSandbox, SandboxView, SpawnedProcess

from .policy import SANDBOX_HOME, NetworkPolicy, SandboxPolicy, bwrap_prefix
from .probe import check_bwrap
from .runtime import confine_runtime
from .server import CommandPool, EnvBuilder, FrozenEnv, Served, find_python
from .view import BwrapView, run_wrapped, wrap_command

__all__ = ["BwrapSandbox"]


class BwrapSandbox:
    """A :class:`harness_core.Sandbox` whose commands run confined by bubblewrap.

    Inside a command: the workspace is mounted read-write at its host path and is the
    working directory; the system directories are read-only; ``$HOME``, ``/root``,
    ``/home``, ``/var``, ``/run`` and the shadow/SSH/TLS-private secrets of ``/etc`` are not
    there; ``/tmp`` is private and empty, and ``HOME`` is ``/tmp/home``; the PID, IPC, UTS
    and cgroup namespaces are new (host processes are invisible and cannot be signalled);
    every capability is dropped; with ``network="none"`` there is no network but a private
    loopback. The command and everything it started are killed when it ends, times out or
    the sandbox stops.

    A command the sandbox denies (a write to a read-only mount, a missing path, a refused
    connection) is an ordinary failed command: its exit code and stderr come back in the
    :class:`harness_core.CommandResult`, never as an exception.

    Args:
        workspace: the workspace directory (must exist).
        network: ``"none"`` (default) or ``"host"``.
        writable: more paths mounted read-write for commands (file operations stay
            confined to the workspace).
        readable: more paths mounted read-only for commands (an interpreter under
            ``$HOME``, a toolchain under ``/opt``...).
        env: variables for every command (not filtered: you chose them).
        inherit_env: host variable names passed through (see
            :class:`harness_core.LocalSandbox`; secret-looking names are always dropped).
        default_timeout: seconds a command may run without its own timeout.
        bwrap: the bubblewrap executable (default ``bwrap`` on ``PATH``).
        command_server: run commands through one long-lived bubblewrap and the command
            server inside it (:mod:`harness_sandbox_bwrap.server`; default, when a system
            ``python3`` exists) instead of one ``bwrap`` per command, for the sandbox and
            each restricted view; ``spawn`` always starts a ``bwrap`` per process.

    Raises:
        BwrapUnavailableError: bubblewrap is missing or cannot create the namespaces here
            (the message says what is missing and how to install it).
        NotADirectoryError: ``workspace`` is not a directory.
        ValueError / TypeError / FileNotFoundError: a bad ``network``, ``writable`` or
            ``readable`` (see :class:`SandboxPolicy`).
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        *,
        network: NetworkPolicy = "none",
        writable: Sequence[str | os.PathLike[str]] = (),
        readable: Sequence[str | os.PathLike[str]] = (),
        env: Mapping[str, str] | None = None,
        inherit_env: Sequence[str] | None = None,
        default_timeout: float = 300.0,
        bwrap: str | None = None,
        command_server: bool = True,
    ) -> None:
        if not Path(workspace).expanduser().is_dir():
            raise NotADirectoryError(f"BwrapSandbox: workspace {os.fspath(workspace)!r} is not an existing directory")
        self._policy = SandboxPolicy(Path(workspace).expanduser(), network=network,
                                     writable=writable, readable=readable)
        executable = check_bwrap(bwrap, unshare_net=self._policy.network == "none")
        self._bwrap = executable
        self._prefix = bwrap_prefix(self._policy, executable)
        inner_env = {"HOME": SANDBOX_HOME, "TMPDIR": "/tmp", **dict(env or {})}
        self._inner_env = inner_env
        self._inherit = None if inherit_env is None else tuple(inherit_env)
        self._default_timeout = default_timeout
        self._files = self._local()
        self._view_runners: list[LocalSandbox] = []
        self._shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
        self._python = find_python() if command_server else None
        self._pools: list[CommandPool] = []
        self._served = self._serve(self._files.command_env)

    def _serve(self, env: EnvBuilder) -> Served | None:
        """A command server pool of its own for the sandbox or one view (None without python3)."""
        if self._python is None:
            return None
        pool = CommandPool(self._prefix, self._python, repr(self))
        self._pools.append(pool)
        return Served(pool, env, self._files.default_timeout, self._files.max_output_bytes, self._shell)

    def _local(self) -> LocalSandbox:
        """A LocalSandbox on the workspace with this sandbox's environment and timeout."""
        if self._inherit is None:  # LocalSandbox's own allowlist
            return LocalSandbox(self._policy.workspace, env=self._inner_env, home=SANDBOX_HOME,
                                default_timeout=self._default_timeout)
        return LocalSandbox(self._policy.workspace, env=self._inner_env, home=SANDBOX_HOME,
                            inherit_env=self._inherit, default_timeout=self._default_timeout)

    def __repr__(self) -> str:
        return f"BwrapSandbox({str(self._policy.workspace)!r}, network={self._policy.network!r})"

    # -- policy (read-only) ---------------------------------------------------------------

    @property
    def policy(self) -> SandboxPolicy:
        """The immutable policy: workspace, network, writable and readable paths."""
        return self._policy

    @property
    def network(self) -> NetworkPolicy:
        """``"none"`` or ``"host"``."""
        return self._policy.network

    @property
    def writable_roots(self) -> tuple[Path, ...]:
        """What commands may write: the workspace, then the extra ``writable`` paths."""
        return (self._policy.workspace, *self._policy.writable)

    def confine_runtime(
        self,
        argv: Sequence[str],
        *,
        writable: Sequence[str | os.PathLike[str]] = (),
        readable: Sequence[str | os.PathLike[str]] = (),
        loopback_ports: Sequence[int] = (),
    ) -> ConfinedLaunch:
        """Wrap an agent runtime's ``argv`` to run wholly inside this sandbox (for adapters).

        The runtime gets this sandbox's policy plus ``writable`` (its isolated home) and
        ``readable`` (its install); with ``network="none"`` each of ``loopback_ports`` on the
        host's 127.0.0.1 is bridged in over a unix socket (:mod:`harness_sandbox_bwrap.runtime`)
        and nothing else of the network is reachable. Implements
        :meth:`harness_core.RuntimeConfinement.confine_runtime`.

        Raises:
            HarnessCapabilityUnsupportedError: ``socat`` is missing for a needed bridge.
            FileNotFoundError: a listed path does not exist.
            ValueError: an empty ``argv`` or a bad port.
        """
        return confine_runtime(self._policy, self._bwrap, argv, writable=writable, readable=readable,
                               loopback_ports=loopback_ports)

    # -- files: confined on the host by LocalSandbox ---------------------------------------

    @property
    def root(self) -> Path:
        """The workspace root, fully resolved."""
        return self._files.root

    def resolve(self, path: str) -> Path:
        """Resolve ``path`` inside the workspace; ``PermissionError`` when it escapes."""
        return self._files.resolve(path)

    def read_bytes(self, path: str, *, max_bytes: int | None = None) -> bytes:
        """Read a regular file inside the workspace (see :meth:`harness_core.LocalSandbox.read_bytes`)."""
        return self._files.read_bytes(path, max_bytes=max_bytes)

    def write_bytes(self, path: str, data: bytes) -> bool:
        """Create or replace a file inside the workspace; True when it was created."""
        return self._files.write_bytes(path, data)

    async def read_text_file(self, path: str) -> str:
        """Read a UTF-8 text file inside the workspace; ``PermissionError`` outside it."""
        return await self._files.read_text_file(path)

    async def write_text_file(self, path: str, content: str) -> None:
        """Create or replace a UTF-8 text file inside the workspace (parents created)."""
        await self._files.write_text_file(path, content)

    # -- commands: inside bubblewrap --------------------------------------------------------

    async def run_command(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``command`` inside the sandbox, in the workspace.

        Args:
            command: a shell command line (run by ``bash -c`` inside) or an argument list.
            timeout: seconds before the command and everything it started are killed
                (``timed_out=True``, ``exit_code=None``).
            env: extra variables for this command.

        Returns:
            Exit code and output, as :meth:`harness_core.LocalSandbox.run_command`; a
            program missing inside the sandbox gives exit code 127 and bwrap's message on
            stderr.

        Raises:
            TypeError / ValueError: a malformed command or timeout.
            RuntimeError: the sandbox was stopped.
        """
        if self._served is not None:
            return await self._served.run(command, timeout=timeout, env=env)
        return await run_wrapped(self._files, self._prefix, self._shell, command, timeout=timeout, env=env)

    async def spawn(self, command: str | list[str], *, env: Mapping[str, str] | None = None) -> SpawnedProcess:
        """Start a long-running process inside the sandbox (its own bwrap), with pipes.

        The process gets the same confinement as :meth:`run_command` (one bubblewrap of its
        own, so it dies with everything it started when killed); :meth:`stop` kills it.
        A program missing inside the sandbox makes the process exit with status 1 and
        bwrap's ``execvp`` message on stderr.

        Raises:
            TypeError / ValueError: a malformed command.
            RuntimeError: the sandbox was stopped.
        """
        return await self._files.spawn(wrap_command(self._prefix, self._shell, command), env=env)

    # -- lifecycle -----------------------------------------------------------------------

    def restricted(self) -> SandboxView:
        """The view handed to host tools: read, write and run inside the sandbox, nothing else.

        It holds the immutable command prefix and the restricted view of a ``LocalSandbox``
        made for it alone (same workspace, environment and timeout), never this object or
        the ``LocalSandbox`` this sandbox runs on: nothing reachable from it can stop the
        sandbox or change its policy. Its commands go to command servers of its own (with
        a snapshot of the environment). :meth:`stop` stops the views' commands too.
        """
        runner = self._local()
        self._view_runners.append(runner)
        served = self._serve(FrozenEnv(tuple(runner.command_env().items())))
        view = BwrapView(runner.restricted(), self._prefix, self._shell, served)
        if served is not None:  # a dropped view's idle servers go with it, not at stop()
            weakref.finalize(view, served.pool.shutdown)
        return view

    async def stop(self) -> None:
        """Kill the commands still running (the views' too); later calls raise ``RuntimeError``."""
        for pool in self._pools:
            await pool.close()
        for runner in [self._files, *self._view_runners]:
            await runner.stop()

