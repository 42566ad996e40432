"""The first-party plugins' light entry-point modules and lazy packages (issue 17).

Each entry-point module registers its hooks without importing the plugin's settings, events
or SDK (``tests/core/test_startup_imports.py`` checks what discovery imports); here: what
that laziness must not change. The harness id an entry-point module repeats equals its
settings' one, every public name of each package still resolves (to the object its module
defines), and the projection hooks answer ``None`` for foreign events, with or without the
plugin's event module loaded, and still project their own.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

PACKAGES = (
    "harness_acp",
    "harness_builtin",
    "harness_claude_code",
    "harness_codex",
    "harness_dbos",
    "harness_pi",
    "harness_rules",
    "harness_sandbox_bwrap",
    "harness_tools_git",
    "harness_ui",
)

ADAPTER_IDS = {"harness_acp": "acp", "harness_claude_code": "claude-code", "harness_codex": "codex", "harness_pi": "pi"}


@pytest.mark.parametrize("package", sorted(ADAPTER_IDS))
def test_the_entry_point_module_repeats_the_settings_harness_id(package: str) -> None:
    plugin = importlib.import_module(f"{package}.plugin")
    settings = importlib.import_module(f"{package}._settings")
    assert plugin.HARNESS_ID == settings.HARNESS_ID == ADAPTER_IDS[package]
    assert list(plugin.harness_adapters()) == [ADAPTER_IDS[package]]
    builtins = plugin.harness_declare_builtins(ADAPTER_IDS[package])
    assert builtins and [tool.name for tool in builtins] == [tool.name for tool in importlib.import_module(package).BUILTINS]
    assert plugin.harness_declare_builtins("another-harness") is None


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_and_is_listed(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(set(module.__all__))
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = module.not_a_name


def test_a_lazy_name_is_the_object_its_module_defines() -> None:
    import harness_acp
    import harness_acp._events
    import harness_pi
    import harness_pi._settings

    assert harness_acp.AcpEvent is harness_acp._events.AcpEvent
    assert harness_pi.PiSettings is harness_pi._settings.PiSettings


def test_harness_dbos_launch_stays_the_function_after_its_submodule_is_imported() -> None:
    import harness_dbos
    import harness_dbos.cli
    import harness_dbos.launch  # the submodule of the same name

    assert isinstance(harness_dbos.launch, types.FunctionType)
    assert harness_dbos.launch.__module__ == "harness_dbos.launch"


def test_projection_hooks_tell_their_own_events_from_foreign_ones() -> None:
    from harness_core import ProjectionContext

    plugins = [importlib.import_module(f"{package}.plugin") for package in ("harness_acp", "harness_pi",
                                                                          "harness_claude_code")]
    from harness_acp import AcpEvent
    from harness_claude_code import ClaudeCodeEvent
    from harness_pi import PiRecord

    own = [AcpEvent(close=True), PiRecord({"type": "message_start", "message": {"role": "assistant"}}),
           ClaudeCodeEvent(message=None)]
    for plugin, event in zip(plugins, own, strict=True):
        context = ProjectionContext(harness_id=plugin.HARNESS_ID)
        assert plugin.harness_project_event(object(), context) is None
        assert plugin.harness_project_event(event, context) is not None
        for other in own:
            if other is not event:
                assert plugin.harness_project_event(other, context) is None


def test_before_its_event_module_is_loaded_a_projection_hook_refuses_any_event() -> None:
    code = (
        "import sys\n"
        "from harness_core import ProjectionContext\n"
        "for package in ('harness_acp', 'harness_pi', 'harness_claude_code'):\n"
        "    plugin = __import__(package + '.plugin', fromlist=['x'])\n"
        "    assert plugin.harness_project_event(object(), ProjectionContext(harness_id='x')) is None\n"
        "    assert package + '._events' not in sys.modules, package\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
