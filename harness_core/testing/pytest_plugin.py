"""pytest plugin (entry point ``pytest11``): scripted model servers, isolated homes, runtime markers.

Fixtures:

- ``scripted_model_server``: a factory; ``scripted_model_server(script, **options)``
  returns a started :class:`ScriptedModelServer` (options as its constructor),
  stopped at teardown. Unless ``check_errors=False`` was passed, teardown then
  re-raises the first script error the server answered with HTTP 500 (a tool
  the runtime did not offer, a failing script callable), so such a test fails
  even when the runtime swallowed the 500.
- ``isolated_plugins``: a factory, ``isolated_plugins(*plugins, core=True, env=None)``,
  returning a plugin manager with the core defaults and only those plugins
  (:func:`~harness_core.testing.isolated_plugin_manager`).
- ``isolated_home``: an :class:`IsolatedHome` (a ``dict`` of ``HOME``, ``XDG_*``,
  ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``PI_CODING_AGENT_DIR``) under the
  test's ``tmp_path``.

Marker: ``@pytest.mark.requires_runtime("claude", ...)`` skips the test, with the
reason, unless every named runtime is installed (see ``KNOWN_RUNTIMES``);
``HARNESS_REQUIRE_RUNTIMES=1`` turns those skips into failures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from harness_core.testing._runtimes import (
    IsolatedHome,
    make_isolated_home,
    missing_runtime_reason,
    runtime_required,
    skip_unless_runtime,
)
from harness_core.testing._server import ScriptedModelServer, ScriptLike
from harness_core.testing.plugin_isolation import isolated_plugins

__all__ = ["ScriptedServerFactory", "isolated_home", "isolated_plugins", "scripted_model_server"]


class ScriptedServerFactory(Protocol):
    """The ``scripted_model_server`` fixture's type."""

    def __call__(
        self, script: ScriptLike = (), *, check_errors: bool = True, **options: Any
    ) -> ScriptedModelServer:
        """Start a server for ``script``; ``options`` go to :class:`ScriptedModelServer`."""
        ...


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``requires_runtime`` marker."""
    config.addinivalue_line(
        "markers",
        "requires_runtime(*names): skip unless each named runtime (claude, codex, pi, "
        "codex-acp, pi-acp, acp, node, exe:NAME, module:NAME) is installed",
    )


def _runtime_names(item: pytest.Item) -> list[str]:
    names: list[str] = []
    for marker in item.iter_markers(name="requires_runtime"):
        if not marker.args:
            raise pytest.UsageError(f"{item.nodeid}: requires_runtime needs at least one name")
        names += [str(name) for name in marker.args]
    return names


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests whose runtimes are missing as skipped (reported at the test's location)."""
    for item in items:
        for name in _runtime_names(item):
            reason = missing_runtime_reason(name)
            if reason is not None and not runtime_required(name):
                item.add_marker(pytest.mark.skip(reason=reason))
                break


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail tests whose runtimes are missing when ``HARNESS_REQUIRE_RUNTIMES`` requires them."""
    for name in _runtime_names(item):
        if runtime_required(name):
            skip_unless_runtime(name)


@pytest.fixture
def scripted_model_server() -> Iterator[ScriptedServerFactory]:
    """Factory fixture: start scripted model servers that stop at teardown."""
    started: list[tuple[ScriptedModelServer, bool]] = []

    def factory(
        script: ScriptLike = (), *, check_errors: bool = True, **options: Any
    ) -> ScriptedModelServer:
        server = ScriptedModelServer(script, **options).start()
        started.append((server, check_errors))
        return server

    yield factory
    for server, _ in started:
        server.stop()
    for server, check in started:
        if check:
            server.raise_errors()


@pytest.fixture
def isolated_home(tmp_path: Path) -> IsolatedHome:
    """A fresh home directory for a runtime, as a dict of environment variables."""
    return make_isolated_home(tmp_path / "home")
