"""The core's default plugins, registered like any other plugin.

``permission-mode`` and ``tool-approval`` (approval policies), ``tool-timeout``,
``error-policy`` and ``output-limit`` (execution-policy wrappers), ``default-executor``
and ``default-projection``. Nothing in the core looks them up by name: the approval
policies declare what they enforce (:func:`~harness_core.plugins.policies.enforces`), and
the others are found by pluggy like any implementation. Block one with
``HARNESS_DISABLE_PLUGINS`` or build a manager with ``register_core=False``.
"""

from __future__ import annotations

from harness_core.execution import DefaultExecutor
from harness_core.plugins.execution_policy import ErrorPolicy, OutputLimit, ToolTimeoutPolicy
from harness_core.plugins.policies import PermissionModePolicy, ToolApprovalPolicy
from harness_core.plugins.projection import DefaultProjection

__all__ = ["CORE_PLUGINS", "core_plugins"]

CORE_PLUGINS: tuple[str, ...] = (
    "permission-mode",
    "tool-approval",
    "default-executor",
    "tool-timeout",
    "error-policy",
    "output-limit",
    "default-projection",
)
"""Names of the core's own default plugins, in registration order."""


def core_plugins() -> dict[str, object]:
    """Fresh instances of the default plugins, by name, in registration order (the
    execution wrappers inner to outer)."""
    plugins: dict[str, object] = {
        "permission-mode": PermissionModePolicy(),
        "tool-approval": ToolApprovalPolicy(),
        "default-executor": DefaultExecutor(),
        "tool-timeout": ToolTimeoutPolicy(),
        "error-policy": ErrorPolicy(),
        "output-limit": OutputLimit(),
        "default-projection": DefaultProjection(),
    }
    assert tuple(plugins) == CORE_PLUGINS
    return plugins
