"""OS-level sandboxes for runtimes that run their own tools (Codex, pi, ACP agents).

Such a runtime executes its built-in tools in its own process, so a harness-core sandbox's
``run_command`` never sees them. An OS-level sandbox (``harness_sandbox_bwrap.BwrapSandbox``)
therefore offers adapters :class:`RuntimeConfinement`: its policy as data (``network``,
``writable_roots``), for a runtime with a sandbox of its own to map onto (Codex's
``workspace-write``), and :meth:`RuntimeConfinement.confine_runtime`, which wraps the
runtime's command line so the whole runtime process runs inside the sandbox (pi, ACP agents).

:func:`runtime_confinement` is the one check adapters make at session creation: no sandbox
or a plain :class:`~harness_core.sandbox.LocalSandbox` needs nothing, a
:class:`RuntimeConfinement` is returned for the adapter to apply, anything else is refused
(fail closed: a policy the adapter cannot see is a policy it cannot honour).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import attrs

from harness_core.errors import HarnessCapabilityUnsupportedError
from harness_core.sandbox.local import LocalSandbox

__all__ = ["ConfinedLaunch", "RuntimeConfinement", "install_paths", "python_paths", "runtime_confinement"]

_SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/", "/etc/")


@attrs.frozen
class ConfinedLaunch:
    """A runtime's command line wrapped to run inside a sandbox.

    Attributes:
        argv: the complete argument list to start (the sandbox's wrapper, then the runtime's
            own argv); start it with the runtime's environment and working directory as
            before. Killing the started process ends everything inside.
        close: releases what the launch holds on the host (loopback bridges); call it once
            the runtime process has exited or was killed. Idempotent, never raises.
    """

    argv: tuple[str, ...]
    close: Callable[[], None]


@runtime_checkable
class RuntimeConfinement(Protocol):
    """What an OS-level sandbox offers an adapter whose runtime runs its own tools.

    Attributes:
        network: ``"none"`` (no network but what :meth:`confine_runtime` bridges) or
            ``"host"`` (the host's network).
        writable_roots: the paths commands may write: the workspace first, then any extra
            writable paths (resolved, absolute).
    """

    @property
    def network(self) -> Literal["none", "host"]: ...

    @property
    def writable_roots(self) -> tuple[Path, ...]: ...

    def confine_runtime(
        self,
        argv: Sequence[str],
        *,
        writable: Sequence[str | os.PathLike[str]] = (),
        readable: Sequence[str | os.PathLike[str]] = (),
        loopback_ports: Sequence[int] = (),
    ) -> ConfinedLaunch:
        """Wrap ``argv`` (a runtime) to run inside this sandbox.

        Args:
            argv: the runtime's command line.
            writable: the runtime's own files it must write (its isolated home, session
                files); mounted read-write for the runtime and therefore for its tools.
            readable: the runtime's install (node, its package, an interpreter), read-only;
                a path also listed in ``writable`` but deeper is read-only over it.
            loopback_ports: TCP ports on the host's 127.0.0.1 the runtime must reach (its
                model server, a host-tool relay) even when ``network == "none"``: each
                is bridged in, and nothing else of the host network is.

        Returns:
            The wrapped command line and its ``close``.

        Raises:
            HarnessCapabilityUnsupportedError: the wrapper cannot be built here (a missing
                helper such as ``socat`` for the bridge), saying what is missing.
        """
        ...


def runtime_confinement(harness_id: str, sandbox: object | None) -> RuntimeConfinement | None:
    """What an adapter whose runtime runs its own tools must apply for ``sandbox``.

    Returns:
        ``None`` for no sandbox or a plain :class:`LocalSandbox` (path confinement of the
        host's file operations only; nothing to map); the sandbox itself when it offers
        :class:`RuntimeConfinement`.

    Raises:
        HarnessCapabilityUnsupportedError: any other sandbox (its policy cannot be seen,
            so it cannot be honoured; the runtime would run unconfined).
    """
    if sandbox is None or type(sandbox) is LocalSandbox:
        return None
    if isinstance(sandbox, RuntimeConfinement) and sandbox.network in ("none", "host"):
        return sandbox
    policy = getattr(sandbox, "network", None)
    declared = f" (network={policy!r})" if isinstance(policy, str) else ""
    raise HarnessCapabilityUnsupportedError(
        harness_id, f"the {type(sandbox).__name__} sandbox",
        f"its runtime runs its own tools and that sandbox offers no runtime confinement{declared} "
        "(harness_core.RuntimeConfinement), so commands would run unconfined; use a LocalSandbox or "
        "a sandbox that implements it (harness_sandbox_bwrap.BwrapSandbox)",
    )


def install_paths(*programs: str | os.PathLike[str]) -> list[Path]:
    """The directories to mount read-only so ``programs`` run inside a sandbox.

    For each program (a name on ``PATH`` or a path; links followed): the outermost
    ``node_modules`` folder holding it (an npm install: the package and its dependencies),
    else its install prefix (``<prefix>/bin/<program>`` gives ``<prefix>``), else its folder.
    Programs under the system directories (``/usr``, ``/bin``...) need nothing. The running
    Python's ``sys.prefix`` / ``sys.base_prefix`` are not included; pass ``sys.executable``.

    Returns:
        Existing directories, without duplicates, in the order found; a program that cannot
        be found is skipped.
    """
    found: list[Path] = []
    for program in programs:
        text = os.fspath(program)
        located = shutil.which(text) if os.sep not in text else text
        if located is None or not os.path.exists(located):
            continue
        real = Path(os.path.realpath(located))
        if str(real).startswith(_SYSTEM_PREFIXES):
            continue
        modules = [parent for parent in real.parents if parent.name == "node_modules"]
        if modules:
            candidate = modules[-1]
        elif real.parent.name == "bin" and real.parent.parent != Path("/"):
            candidate = real.parent.parent
        else:
            candidate = real.parent
        if candidate.is_dir() and candidate not in found and candidate != Path("/"):
            found.append(candidate)
    return found


def python_paths() -> list[Path]:
    """The running interpreter's prefixes and import roots outside the system directories.

    For running ``sys.executable -m <module>`` inside a sandbox: ``sys.prefix``,
    ``sys.base_prefix`` and every ``sys.path`` directory (editable installs point outside
    the prefix) that is not a system directory.
    """
    found: list[Path] = []
    for entry in [sys.prefix, sys.base_prefix, *sys.path]:
        if not entry or not os.path.isdir(entry):
            continue
        real = Path(os.path.realpath(entry))
        if str(real).startswith(_SYSTEM_PREFIXES) or real == Path("/") or real in found:
            continue
        found.append(real)
    return found
