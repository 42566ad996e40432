"""Discovery errors say what was wrong and where: the tool, the option (with a suggestion)
and the plugin's own file:line."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import pytest

from harness_core import ToolDefinitionError, create_plugin_manager, define_harness_tool, hookimpl

PACK = """\
from harness_core import define_harness_tool, hookimpl

GREP = define_harness_tool(
    name="grep_notes",
    description="Search the notes.",
    input={"type": "object"},
    readonly=True,
)
"""


class FileEntryPoint:
    """An entry point whose load() imports a real module file, as importlib.metadata does."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.value, self.dist, self._path = name, f"{path.stem}:plugin", None, path

    def load(self) -> object:
        spec = importlib.util.spec_from_file_location(self._path.stem, self._path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod


def test_an_unknown_tool_option_suggests_the_right_one() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        define_harness_tool(name="t", description="d", input={"type": "object"}, readonly=True)
    assert str(caught.value).startswith(
        "tool 't': unknown option 'readonly' (did you mean 'read_only'?)"
    )


def test_a_tool_pack_failing_at_import_names_the_tool_the_option_and_its_file_line(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "notes_pack.py"
    pack.write_text(PACK)
    manager = create_plugin_manager(load_entry_points=False, env={})
    with pytest.warns(Warning):
        [record] = manager.load_entry_points([FileEntryPoint("notes", pack)])
    assert record.status == "failed"
    assert record.error is not None
    assert (
        "tool 'grep_notes': unknown option 'readonly' (did you mean 'read_only'?)" in record.error
    )
    assert record.error.endswith(f"(at {pack}:3)"), record.error


def test_a_hook_failure_names_the_plugin_file_line() -> None:
    def harness_tools() -> list[object]:
        raise RuntimeError("no notes folder")

    plugin = types.ModuleType("notes")
    plugin.harness_tools = hookimpl(harness_tools)  # type: ignore[attr-defined]
    manager = create_plugin_manager(load_entry_points=False, env={})
    with pytest.warns(Warning) as caught:
        manager.register(plugin, name="notes")
    line = harness_tools.__code__.co_firstlineno + 1
    where = f"(at {Path(__file__).relative_to(Path.cwd())}:{line})"
    assert any("RuntimeError: no notes folder " + where in str(w.message) for w in caught), [
        str(w.message) for w in caught
    ]


class NotesPolicy:
    @hookimpl
    def harness_approve_call(self, call: object, context: object) -> None:
        return None


class BrokenPolicy:
    @hookimpl
    def harness_approve_call(self, call: object, contxt: object) -> None:
        return None


def test_plugin_instances_are_named_by_their_class_and_kept_apart() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    first, second = NotesPolicy(), NotesPolicy()
    assert manager.register(first).name == f"{__name__}.NotesPolicy"
    assert manager.register(second).name == f"{__name__}.NotesPolicy#2"
    assert manager.register(first).name == f"{__name__}.NotesPolicy"  # the same object again
    assert manager.pm.get_plugin(f"{__name__}.NotesPolicy#2") is second


def test_a_per_agent_plugin_that_fails_to_register_is_named_by_its_class() -> None:
    from harness_core import HarnessAgent, HarnessConfigurationError
    from harness_core.testing import ScriptedAdapter

    with pytest.warns(Warning), pytest.raises(HarnessConfigurationError) as caught:
        HarnessAgent(harness=ScriptedAdapter([]), plugins=[BrokenPolicy()])
    message = str(caught.value)
    assert message.startswith(f"plugins[0] ({__name__}.BrokenPolicy) could not be registered"), message
    assert "object at 0x" not in message and "contxt" in message
