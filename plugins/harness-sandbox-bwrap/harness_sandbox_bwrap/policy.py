"""The sandbox policy and the bubblewrap command line that enforces it.

:class:`SandboxPolicy` is immutable: once a :class:`~harness_sandbox_bwrap.BwrapSandbox`
is made, nothing (and certainly not the restricted view) can change what it mounts or
whether it has a network. :func:`bwrap_prefix` turns it into the ``bwrap ... --`` argument
prefix put in front of every command.

The mount layout, in order (later mounts go on top of earlier ones):

1. the system, read-only: ``/usr``, ``/etc``, ``/opt`` and ``/bin``, ``/sbin``, ``/lib``,
   ``/lib32``, ``/lib64`` (re-created as the same symbolic links when they are links on
   the host), each only when it exists;
2. secrets inside ``/etc`` hidden: the shadow password files replaced by an empty file,
   ``/etc/ssh`` and ``/etc/ssl/private`` by empty directories;
3. fresh ``/dev`` (null, zero, random, tty...), ``/proc`` of the new PID namespace, an
   empty private ``/tmp`` (a tmpfs) holding the command's ``HOME`` (:data:`SANDBOX_HOME`);
4. ``readable`` paths read-only, ``writable`` paths and the workspace read-write, at their
   host paths, shallowest first so a nested mount is not hidden by its parent.

Nothing else of the host is there: not ``$HOME`` (``~/.ssh``, ``~/.aws``, ...), not
``/root``, ``/home``, ``/var``, ``/srv``, ``/mnt`` or ``/run`` (no sockets of host daemons).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

import attrs

__all__ = ["SANDBOX_HOME", "NetworkPolicy", "SandboxPolicy", "bwrap_prefix"]

NetworkPolicy = Literal["none", "host"]
"""``"none"``: a new network namespace with only its own loopback (nothing of the host's,
127.0.0.1 included, is reachable); ``"host"``: the host's network, unchanged."""

SANDBOX_HOME: Final = "/tmp/home"
"""``HOME`` inside the sandbox: an empty directory on the private ``/tmp``."""

_SYSTEM_DIRS: Final = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
_HIDDEN_FILES: Final = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-")
_HIDDEN_DIRS: Final = ("/etc/ssh", "/etc/ssl/private")


def _paths(values: object) -> tuple[Path, ...]:
    if isinstance(values, str | os.PathLike):
        raise TypeError("writable / readable must be a list of paths, not a single path")
    if not isinstance(values, list | tuple | Sequence):
        raise TypeError(f"writable / readable must be a list of paths, got {type(values).__name__}")
    out: list[Path] = []
    for value in values:
        if not isinstance(value, str | os.PathLike):
            raise TypeError(f"writable / readable entries must be paths, got {type(value).__name__} {value!r}")
        path = Path(os.path.realpath(Path(value).expanduser()))
        if not path.exists():
            raise FileNotFoundError(f"sandbox path {os.fspath(value)!r} does not exist")
        if path == Path("/"):
            raise ValueError("the whole file system cannot be mounted into the sandbox")
        out.append(path)
    return tuple(out)


def _resolved(value: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(value))


def _network(value: object) -> NetworkPolicy:
    if value == "none":
        return "none"
    if value == "host":
        return "host"
    raise ValueError(f"network must be 'none' or 'host', got {value!r}")


@attrs.frozen
class SandboxPolicy:
    """What a sandboxed command may touch.

    Attributes:
        workspace: the resolved workspace directory, mounted read-write.
        network: ``"none"`` (default) or ``"host"``; see :data:`NetworkPolicy`.
        writable: more directories or files mounted read-write (resolved, must exist).
        readable: more directories or files mounted read-only (resolved, must exist), for
            an interpreter or toolchain outside the system directories.

    Raises:
        ValueError: an unknown network policy, or ``/`` given as a path.
        TypeError: ``writable`` / ``readable`` is not a list of paths.
        FileNotFoundError: a listed path does not exist.
    """

    workspace: Path = attrs.field(converter=_resolved)
    network: NetworkPolicy = attrs.field(default="none", converter=_network)
    writable: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    readable: tuple[Path, ...] = attrs.field(default=(), converter=_paths)


def _system_mounts() -> list[str]:
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    for name in _HIDDEN_FILES:
        if os.path.lexists(name):
            args += ["--ro-bind", "/dev/null", name]
    for name in _HIDDEN_DIRS:
        if os.path.isdir(name) and not os.path.islink(name):
            args += ["--tmpfs", name, "--remount-ro", name]
    return args


def bwrap_prefix(policy: SandboxPolicy, bwrap: str) -> tuple[str, ...]:
    """The ``bwrap`` arguments, ending with ``--``, that run a command under ``policy``.

    Args:
        policy: the mounts and network policy.
        bwrap: the absolute path of the bubblewrap executable.

    Returns:
        ``(bwrap, ..., "--")``: append the command's argv. The command starts in the
        workspace, as a new session (no terminal to inject input into), with every
        capability dropped, in new PID, IPC, UTS and cgroup namespaces (and network unless
        ``policy.network == "host"``), and dies with its parent.
    """
    args = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    if policy.network == "none":
        args.append("--unshare-net")
    args += _system_mounts()
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", SANDBOX_HOME]
    binds = [(path, "--ro-bind") for path in policy.readable]
    binds += [(path, "--bind") for path in policy.writable]
    binds.append((policy.workspace, "--bind"))
    for path, flag in sorted(binds, key=lambda item: len(item[0].parts)):
        args += [flag, str(path), str(path)]
    args += ["--chdir", str(policy.workspace), "--"]
    return tuple(args)
