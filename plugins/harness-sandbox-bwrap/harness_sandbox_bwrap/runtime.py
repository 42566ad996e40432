"""A whole agent runtime (pi, an ACP agent) inside the sandbox, with its model endpoint bridged.

:func:`confine_runtime` wraps a runtime's argv in ``bwrap`` under the sandbox's policy plus
the runtime's own files (its isolated home read-write, its install read-only). The runtime
and every tool it runs are then confined exactly like a ``run_command``.

**The loopback bridge.** With ``network="none"`` the runtime sits in a new network namespace,
where ``127.0.0.1`` is its own, empty loopback: the scripted or local model server on the
host's ``127.0.0.1:<port>`` is unreachable. For each port the runtime must reach, one
``socat`` on the host listens on a unix socket in a private directory and connects to
``127.0.0.1:<port>``; one ``socat`` inside the sandbox listens on the namespace's
``127.0.0.1:<port>`` and connects to that socket (the directory is mounted read-only). The
runtime keeps its configured URL; only those ports are reachable, nothing else of the host
network (other loopback ports, other hosts, DNS). The runtime's tools can reach the bridged
ports too: they are the runtime's model endpoint and host-tool relay, nothing more.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import attrs

from harness_core import ConfinedLaunch, HarnessCapabilityUnsupportedError

from .policy import SandboxPolicy, bwrap_prefix

__all__ = ["confine_runtime"]

_SOCKET_WAIT: Final = 10.0
_LISTEN_WAIT_STEPS: Final = 1000  # x 10 ms inside the sandbox
_SYSTEM: Final = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/")


def _socat() -> str:
    found = shutil.which("socat")
    if found is None:
        raise HarnessCapabilityUnsupportedError(
            "sandbox-bwrap", "a runtime inside the sandbox with network='none'",
            "the runtime must reach its model server on 127.0.0.1 through a bridge, which needs `socat` "
            "(Debian/Ubuntu: `apt-get install -y socat`); or use network='host'",
        )
    return os.path.realpath(found)


def _ports(values: Sequence[int]) -> tuple[int, ...]:
    ports: list[int] = []
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
            raise ValueError(f"loopback_ports: {value!r} is not a TCP port")
        if value not in ports:
            ports.append(value)
    return tuple(ports)


class _Bridge:
    """The host half of the loopback bridge: one ``socat`` per port, in a private directory."""

    def __init__(self, ports: tuple[int, ...], socat: str) -> None:
        self.ports = ports
        self.socat = socat
        self.directory = Path(tempfile.mkdtemp(prefix="harness-bridge-"))
        self._processes: list[subprocess.Popen[bytes]] = []
        self._closed = False
        try:
            for port in ports:
                self._processes.append(subprocess.Popen(
                    [socat, f"UNIX-LISTEN:{self.socket(port)},fork,mode=600", f"TCP:127.0.0.1:{port}"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True,
                ))
            self._wait_for_sockets()
        except BaseException:
            self.close()
            raise

    def socket(self, port: int) -> Path:
        """The unix socket standing for ``127.0.0.1:<port>``."""
        return self.directory / f"{port}.sock"

    def _wait_for_sockets(self) -> None:
        deadline = time.monotonic() + _SOCKET_WAIT
        while not all(self.socket(port).exists() for port in self.ports):
            dead = [process for process in self._processes if process.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise HarnessCapabilityUnsupportedError(
                    "sandbox-bwrap", "the loopback bridge",
                    f"socat did not start listening on {self.directory} (exit {dead[0].returncode if dead else 'none'})",
                )
            time.sleep(0.005)

    def inner_script(self) -> str:
        """The ``sh`` script run inside: start the inner halves, wait until they listen, exec the runtime."""
        lines = ["set -u"]
        for port in self.ports:
            lines.append(f"'{self.socat}' TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr "
                         f"UNIX-CONNECT:'{self.socket(port)}' </dev/null >/dev/null 2>&1 &")
        for port in self.ports:
            lines.append(
                f"i=0; while ! grep -q '0100007F:{port:04X} 00000000:0000 0A' /proc/net/tcp; do "
                f"i=$((i+1)); if [ $i -gt {_LISTEN_WAIT_STEPS} ]; then "
                f"echo 'harness-sandbox-bwrap: the bridge for port {port} did not start' >&2; exit 125; fi; "
                "sleep 0.01; done")
        lines.append('exec "$@"')
        return "\n".join(lines)

    def close(self) -> None:
        """Kill the host halves and remove the directory. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for process in self._processes:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        shutil.rmtree(self.directory, ignore_errors=True)


def confine_runtime(
    policy: SandboxPolicy,
    bwrap: str,
    argv: Sequence[str],
    *,
    writable: Sequence[str | os.PathLike[str]] = (),
    readable: Sequence[str | os.PathLike[str]] = (),
    loopback_ports: Sequence[int] = (),
) -> ConfinedLaunch:
    """``argv`` wrapped in ``bwrap`` under ``policy`` plus the runtime's own paths.

    See :meth:`harness_core.RuntimeConfinement.confine_runtime`. Ports are bridged only
    when ``policy.network == "none"`` (with ``"host"`` the runtime reaches them directly).

    Raises:
        ValueError: an empty ``argv`` or a bad port.
        FileNotFoundError: a listed path does not exist.
        HarnessCapabilityUnsupportedError: ``socat`` is missing for a needed bridge.
    """
    command = [os.fspath(part) for part in argv]
    if not command:
        raise ValueError("confine_runtime: the runtime's argv is empty")
    ports = _ports(loopback_ports) if policy.network == "none" else ()
    bridge = _Bridge(ports, _socat()) if ports else None
    try:
        extra_readable = [*readable]
        if bridge is not None:
            extra_readable.append(bridge.directory)
            if not bridge.socat.startswith(_SYSTEM):
                extra_readable.append(Path(bridge.socat).parent)
        runtime_policy = attrs.evolve(
            policy,
            writable=[*policy.writable, *writable],
            readable=[*policy.readable, *extra_readable],
        )
        prefix = list(bwrap_prefix(runtime_policy, bwrap))
    except BaseException:
        if bridge is not None:
            bridge.close()
        raise
    if bridge is None:
        return ConfinedLaunch(argv=(*prefix, *command), close=lambda: None)
    wrapped = (*prefix, "/bin/sh", "-c", bridge.inner_script(), "harness-runtime", *command)
    return ConfinedLaunch(argv=wrapped, close=bridge.close)
