"""Sandboxes: where a session's files live and its commands run.

:class:`Sandbox` is the protocol a session's sandbox implements; :class:`SandboxView` is the
restricted view handed to host tools (read, write, run commands; no way to stop the sandbox
or change its policy: see :func:`restricted_view`). :class:`LocalSandbox` confines paths to
a workspace directory on this machine. :func:`path_in_workspace` (one resolver,
:func:`resolve_like_os`) decides whether a built-in call's path stays in the workspace.
docs/sandbox.md describes the API for tool authors.
"""

from __future__ import annotations

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
