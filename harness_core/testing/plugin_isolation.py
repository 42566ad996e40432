"""Plugin managers holding only the plugins a test names.

The process-wide manager holds every installed plugin, so a policy someone installed in
the environment changes what an agent does. :func:`isolated_plugin_manager` builds one
with the core defaults (optional) and exactly the plugins given, reading no
``HARNESS_*`` variable; the ``isolated_plugins`` fixture of the ``harness_core.testing``
pytest plugin is a factory for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import pytest

from harness_core import HarnessConfigurationError, HarnessPluginManager, create_plugin_manager

__all__ = ["IsolatedPlugins", "isolated_plugin_manager", "isolated_plugins"]


def isolated_plugin_manager(*plugins: object, core: bool = True,
                            env: Mapping[str, str] | None = None) -> HarnessPluginManager:
    """A manager with the core defaults (unless ``core=False``) and only ``plugins``.

    Args:
        plugins: in-memory plugins (modules, class instances) to register, in order.
        core: register the core default plugins.
        env: the ``HARNESS_*`` switches it sees (default: none, whatever ``os.environ`` says).

    Raises:
        HarnessConfigurationError: a plugin was rejected (the message has the reason).
    """
    manager = create_plugin_manager(load_entry_points=False, env=dict(env or {}), register_core=core)
    for plugin in plugins:
        record = manager.register(plugin)
        if record.status != "loaded":
            raise HarnessConfigurationError(f"isolated_plugin_manager: {record.name!r} is {record.status}: {record.error}")
    return manager


class IsolatedPlugins(Protocol):
    """The ``isolated_plugins`` fixture: ``isolated_plugins(*plugins, core=True, env=None)``."""

    def __call__(self, *plugins: object, core: bool = True,
                 env: Mapping[str, str] | None = None) -> HarnessPluginManager: ...


@pytest.fixture
def isolated_plugins() -> IsolatedPlugins:
    """A factory for :func:`isolated_plugin_manager` (registered by the pytest plugin)."""
    return isolated_plugin_manager
