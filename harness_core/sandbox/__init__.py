"""Sandboxes: where a session's files live and its commands run.

:class:`Sandbox` is the protocol a session's sandbox implements; :class:`SandboxView` is the
restricted view handed to host tools (read, write, run commands; no way to stop the sandbox
or change its policy: see :func:`restricted_view`). :class:`LocalSandbox` confines paths to
a workspace directory on this machine. :func:`path_in_workspace` (one resolver,
:func:`resolve_like_os`) decides whether a built-in call's path stays in the workspace.
docs/sandbox.md describes the API for tool authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core.lazy import lazy_exports

if TYPE_CHECKING:
    from harness_core.sandbox.confine import path_in_workspace, paths_outside, resolve_like_os
    from harness_core.sandbox.confinement import (
        ConfinedLaunch,
        RuntimeConfinement,
        install_paths,
        python_paths,
        runtime_confinement,
    )
    from harness_core.sandbox.environment import (
        DEFAULT_ENV_ALLOWLIST,
        SECRET_ENV_PATTERNS,
        is_secret_env_name,
    )
    from harness_core.sandbox.local import LocalSandbox
    from harness_core.sandbox.policy import require_path_sandbox
    from harness_core.sandbox.protocol import CommandResult, Sandbox, SandboxView
    from harness_core.sandbox.spawn import SandboxProcess, SpawnedProcess
    from harness_core.sandbox.view import kill_spawned, restricted_view

__all__ = [
    "DEFAULT_ENV_ALLOWLIST",
    "SECRET_ENV_PATTERNS",
    "CommandResult",
    "ConfinedLaunch",
    "LocalSandbox",
    "RuntimeConfinement",
    "Sandbox",
    "SandboxProcess",
    "SandboxView",
    "SpawnedProcess",
    "install_paths",
    "is_secret_env_name",
    "path_in_workspace",
    "paths_outside",
    "kill_spawned",
    "python_paths",
    "require_path_sandbox",
    "resolve_like_os",
    "restricted_view",
    "runtime_confinement",
]

_LAZY: dict[str, str] = {
    "CommandResult": "harness_core.sandbox.protocol",
    "ConfinedLaunch": "harness_core.sandbox.confinement",
    "DEFAULT_ENV_ALLOWLIST": "harness_core.sandbox.environment",
    "LocalSandbox": "harness_core.sandbox.local",
    "RuntimeConfinement": "harness_core.sandbox.confinement",
    "SECRET_ENV_PATTERNS": "harness_core.sandbox.environment",
    "Sandbox": "harness_core.sandbox.protocol",
    "SandboxProcess": "harness_core.sandbox.spawn",
    "SandboxView": "harness_core.sandbox.protocol",
    "SpawnedProcess": "harness_core.sandbox.spawn",
    "install_paths": "harness_core.sandbox.confinement",
    "is_secret_env_name": "harness_core.sandbox.environment",
    "kill_spawned": "harness_core.sandbox.view",
    "path_in_workspace": "harness_core.sandbox.confine",
    "paths_outside": "harness_core.sandbox.confine",
    "python_paths": "harness_core.sandbox.confinement",
    "require_path_sandbox": "harness_core.sandbox.policy",
    "resolve_like_os": "harness_core.sandbox.confine",
    "restricted_view": "harness_core.sandbox.view",
    "runtime_confinement": "harness_core.sandbox.confinement",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_core.sandbox.confine` (the permission-mode policy) through this package and must
not pay for the local sandbox, its processes and confinement (issue 17)."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
