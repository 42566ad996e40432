"""Is bubblewrap usable here? One check, one clear error.

:func:`check_bwrap` finds the ``bwrap`` executable and runs it once with the namespaces a
:class:`~harness_sandbox_bwrap.BwrapSandbox` needs (mount, PID, IPC, and network when the
policy unshares it). The outcome is cached per (executable, network policy) for the life
of the process, so a sandbox costs one probe per process, not one per construction.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import Final

from harness_core import HarnessCapabilityUnsupportedError

__all__ = ["INSTALL_HINT", "BwrapUnavailableError", "check_bwrap"]

INSTALL_HINT: Final = (
    "install bubblewrap (Debian/Ubuntu: `apt-get install -y bubblewrap`; Fedora: `dnf install bubblewrap`) "
    "and, when not running as root, allow unprivileged user namespaces "
    "(`sysctl kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04+ "
    "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`)"
)
"""What to do when bubblewrap cannot confine commands on this machine."""

_PROBE_TIMEOUT: Final = 30.0


class BwrapUnavailableError(HarnessCapabilityUnsupportedError):
    """bubblewrap is missing or cannot create the namespaces a sandbox needs here.

    The message says what is missing (the executable, or the kernel refusing a namespace,
    with bwrap's own words) and how to install or enable it (:data:`INSTALL_HINT`).

    Attributes:
        harness_id: ``"sandbox-bwrap"``.
        capability: ``"the bubblewrap sandbox"``.
    """

    def __init__(self, detail: str) -> None:
        super().__init__("sandbox-bwrap", "the bubblewrap sandbox", f"{detail}; {INSTALL_HINT}")


def check_bwrap(executable: str | None = None, *, unshare_net: bool = True) -> str:
    """The absolute path of a ``bwrap`` that can confine commands on this machine.

    Args:
        executable: a path or name of the bubblewrap executable (default: ``bwrap`` on
            ``PATH``).
        unshare_net: also check that a new network namespace can be created.

    Returns:
        The absolute path of the executable.

    Raises:
        BwrapUnavailableError: no such executable, or it failed to set up the namespaces
            (the message quotes its stderr and says how to fix it).
    """
    found = shutil.which(executable or "bwrap")
    if found is None:
        where = repr(executable) if executable else "`bwrap` on PATH"
        raise BwrapUnavailableError(f"bubblewrap is not installed (no executable {where})")
    path = os.path.realpath(found)
    problem = _probe(path, unshare_net)
    if problem is not None:
        raise BwrapUnavailableError(problem)
    return path


@functools.lru_cache(maxsize=8)
def _probe(path: str, unshare_net: bool) -> str | None:
    """``None`` when ``bwrap`` at ``path`` runs ``true`` in fresh namespaces, else why not."""
    argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL"]
    if os.geteuid() != 0:
        argv.append("--unshare-user")
    if unshare_net:
        argv.append("--unshare-net")
    argv += ["--", "true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=_PROBE_TIMEOUT, check=False)
    except OSError as exc:
        return f"bubblewrap at {path!r} could not be started ({exc.strerror or exc})"
    except subprocess.TimeoutExpired:
        return f"bubblewrap at {path!r} did not finish a trivial command within {_PROBE_TIMEOUT:g} s"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", errors="replace").strip() or f"exit code {done.returncode}"
    namespaces = "mount, PID, IPC" + (", network" if unshare_net else "")
    return f"bubblewrap at {path!r} cannot create the {namespaces} namespaces here (bwrap: {said})"
