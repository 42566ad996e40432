"""``--sandbox NAME`` of ``harness run`` (and ``harness demo``): the session sandbox by name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness_core.errors import HarnessConfigurationError, HarnessError

if TYPE_CHECKING:
    from harness_core.sandbox import Sandbox

__all__ = ["make_sandbox"]


def make_sandbox(name: str, workspace: Path) -> Sandbox:
    """``local`` (a :class:`~harness_core.sandbox.LocalSandbox`), or the factory a plugin
    contributes under ``name`` through ``harness_sandboxes``, called on ``workspace``.

    Raises:
        HarnessConfigurationError: no plugin provides ``name`` (the message lists the
            available names), or its sandbox cannot be made here (the provider's reason,
            e.g. bubblewrap missing and how to install it).
    """
    from harness_core.plugins.manager import get_plugin_manager
    from harness_core.sandbox import LocalSandbox

    if name == "local":
        return LocalSandbox(workspace)
    factory = get_plugin_manager().hooks.sandbox_factory(name)
    try:
        return factory(workspace)
    except HarnessConfigurationError:
        raise
    except (HarnessError, OSError, ValueError, TypeError) as exc:
        raise HarnessConfigurationError(f"sandbox {name!r} cannot be used here: {exc}") from None
