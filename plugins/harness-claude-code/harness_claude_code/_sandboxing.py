"""The session sandbox mapped onto Claude Code's own sandbox (the SDK's ``sandbox`` option).

Claude Code runs its tools itself, in its own process, so a harness-core sandbox cannot
confine them directly. What can be honoured:

* no sandbox, or a :class:`harness_core.LocalSandbox` (path confinement, no OS boundary):
  nothing to map; the CLI works in the sandbox's root as before;
* a sandbox with an OS-level network policy (``network == "none"``, such as
  ``harness_sandbox_bwrap.BwrapSandbox``): Claude Code's sandbox is turned on for Bash
  (on Linux it uses bubblewrap too, with ``socat`` for its network proxy) with writes only
  in the workspace (not the sandbox's extra ``writable`` paths: stricter), no domain reachable,
  nothing readable but the workspace, the system directories and Claude Code's own
  home/config directories (``$HOME``, ``/root``, ``/tmp``... are hidden), unsandboxed commands
  refused, and ``failIfUnavailable`` so a missing dependency stops the CLI instead of
  running commands unconfined. Claude Code's own file and web tools run in the CLI process,
  outside its sandbox, so only :data:`CONFINED_NATIVES` are offered.

Everything else raises :class:`harness_core.HarnessCapabilityUnsupportedError` when the
session is created: ``network == "host"`` (Claude Code's sandbox filters by domain through
a proxy; raw connections such as 127.0.0.1 are not the host's network), any other sandbox
type, and a machine without ``bwrap`` or ``socat`` (the CLI would warn and run commands
unconfined).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from harness_core import HarnessCapabilityUnsupportedError, LocalSandbox

from ._settings import HARNESS_ID

__all__ = ["CONFINED_NATIVES", "sandbox_settings"]

CONFINED_NATIVES: frozenset[str] = frozenset({
    "Bash", "BashOutput", "KillShell", "TaskStop", "TodoWrite", "TaskCreate", "TaskGet", "TaskList",
    "TaskUpdate", "TaskOutput", "ExitPlanMode",
})
"""The natives Claude Code may keep under a confining sandbox: its sandboxed shell and tools
that touch neither files nor the network. ``Read``, ``Write``, ``Edit``, ``Grep``, ``Glob``,
``LS``, ``NotebookEdit``, ``MultiEdit``, ``WebFetch``, ``WebSearch``, ``Skill`` and ``Task``
run inside the CLI process, outside its sandbox, so they are withheld (the model does file
work through the confined ``Bash``)."""


@runtime_checkable
class _NetworkPolicySandbox(Protocol):
    """A sandbox that declares an OS-level network policy (``"none"`` or ``"host"``)."""

    @property
    def network(self) -> str: ...


def _unsupported(detail: str) -> HarnessCapabilityUnsupportedError:
    return HarnessCapabilityUnsupportedError(HARNESS_ID, "this session sandbox", detail)


_SYSTEM_READABLE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt", "/dev", "/proc", "/sys")


def sandbox_settings(sandbox: object | None, workspace: Path, runtime_dirs: Sequence[Path] = ()) -> str | None:
    """Claude Code ``sandbox`` settings (as JSON) enforcing ``sandbox``'s policy, or ``None``.

    Args:
        sandbox: the session sandbox (``StartRequest.sandbox``), or ``None``.
        workspace: the resolved workspace the CLI runs in.
        runtime_dirs: Claude Code's own home and config directories (readable by its shell).

    Returns:
        ``None`` when there is no OS-level policy to honour (no sandbox, a ``LocalSandbox``);
        else the JSON of the SDK's ``SandboxSettings``.

    Raises:
        HarnessCapabilityUnsupportedError: the policy cannot be honoured by Claude Code here
            (the message says why and, for missing tools, how to install them).
    """
    if sandbox is None or isinstance(sandbox, LocalSandbox):
        return None
    kind = type(sandbox).__name__
    if not isinstance(sandbox, _NetworkPolicySandbox) or sandbox.network not in ("none", "host"):
        raise _unsupported(
            f"{kind} declares no network policy Claude Code can map; Claude Code runs its own tools, so only "
            "no sandbox, a LocalSandbox, or a sandbox with network='none' (e.g. BwrapSandbox) can be honoured"
        )
    if sandbox.network == "host":
        raise _unsupported(
            f"{kind}(network='host'): Claude Code's sandbox only filters the network by domain through its own "
            "proxy, so its commands cannot get the host's network unchanged; use network='none'"
        )
    if not sys.platform.startswith("linux"):
        raise _unsupported(f"{kind}: the Claude Code sandbox mapping is implemented for Linux only")
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        raise _unsupported(
            f"{kind}: Claude Code's sandbox needs {' and '.join(missing)} on PATH (without them it runs commands "
            "unconfined); install them (Debian/Ubuntu: `apt-get install -y bubblewrap socat`)"
        )
    readable = [str(workspace), *(p for p in _SYSTEM_READABLE if os.path.exists(p)), *map(str, runtime_dirs)]
    settings = {
        "enabled": True,
        "failIfUnavailable": True,
        "allowUnsandboxedCommands": False,
        "autoAllowBashIfSandboxed": False,
        "filesystem": {
            "allowWrite": [str(workspace)],
            "denyRead": ["/"],
            "allowRead": readable,
        },
        "network": {"allowedDomains": [], "strictAllowlist": True},
    }
    return json.dumps(settings, sort_keys=True)
