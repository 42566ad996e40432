"""Plugin discovery: load isolation, rollback, strict mode, disabling, idempotence.

Entry points are faked (objects with ``name``, ``value``, ``load()`` and ``dist``), so no
test installs anything; tests/core/test_cli_plugins.py covers a real installed one.
"""

from __future__ import annotations

import importlib.metadata
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import harness_core.plugins.manager as plugins_module
from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    BuiltinTool,
    HarnessTool,
    PermissionMode,
    PluginLoadError,
    ToolCall,
    ToolKind,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)
from harness_core.execution import DefaultExecutor
from harness_core.plugins.execution_policy import ErrorPolicy, OutputLimit, ToolTimeoutPolicy
from harness_core.plugins.manager import CORE_PLUGINS, HarnessPluginManager, PluginLoadWarning
from harness_core.plugins.policies import PermissionModePolicy, ToolApprovalPolicy
from harness_core.plugins.projection import DefaultProjection


class FakeDist:
    """What discovery reads of an ``importlib.metadata.Distribution``."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version
        self.metadata = {"Name": name}


class FakeEntryPoint:
    """An entry point whose ``load()`` runs ``loader`` and counts the imports."""

    def __init__(
        self, name: str, loader: Callable[[], object], dist: FakeDist | None = None
    ) -> None:
        self.name = name
        self.value = f"fake_{name.replace('-', '_')}.plugin"
        self.dist = dist if dist is not None else FakeDist(f"dist-{name}", "1.2.3")
        self._loader = loader
        self.loads = 0

    def load(self) -> object:
        self.loads += 1
        return self._loader()


def module(name: str, **attributes: Any) -> types.ModuleType:
    """A plugin module made in memory."""
    mod = types.ModuleType(name)
    for key, value in attributes.items():
        setattr(mod, key, value)
    return mod


def echo_tool(name: str = "echo") -> HarnessTool:
    return define_harness_tool(
        name=name, description="Echo.", input={"type": "object"}, execute=lambda i, c: "x"
    )


def good_module(name: str = "good", tool: str = "echo") -> types.ModuleType:
    @hookimpl
    def harness_tools() -> list[HarnessTool]:
        return [echo_tool(tool)]

    return module(name, harness_tools=harness_tools)


def manager(env: dict[str, str] | None = None) -> HarnessPluginManager:
    return create_plugin_manager(load_entry_points=False, env=env or {})


def raising(exc: BaseException) -> Callable[[], object]:
    def load() -> object:
        raise exc  # RAISE_LINE: discovery errors name this line

    return load


HERE = Path(__file__).resolve().relative_to(Path.cwd().resolve())
RAISE_LINE = next(
    n
    for n, line in enumerate(Path(__file__).read_text().splitlines(), 1)
    if line.endswith("# RAISE_LINE: discovery errors name this line")
)


@pytest.fixture
def caught() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        yield records


def plugin_warnings(records: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in records if issubclass(w.category, PluginLoadWarning)]


def impl_plugins(m: HarnessPluginManager, hook: str) -> list[str]:
    return [impl.plugin_name for impl in getattr(m.pm.hook, hook).get_hookimpls()]


# -- one broken plugin never stops the others ----------------------------------------------


def test_import_failure_is_skipped_with_a_warning_naming_plugin_distribution_and_error(
    caught: list[warnings.WarningMessage],
) -> None:
    m = manager()
    broken = FakeEntryPoint(
        "broken",
        raising(ImportError("No module named 'missing_sdk'")),
        FakeDist("broken-dist", "0.3"),
    )
    after = FakeEntryPoint("after", lambda: good_module())
    records = m.load_entry_points([broken, after])
    assert [(r.name, r.status) for r in records] == [("broken", "failed"), ("after", "loaded")]
    assert (
        records[0].error
        == f"import failed: ImportError: No module named 'missing_sdk' (at {HERE}:{RAISE_LINE})"
    )
    assert (records[0].distribution, records[0].version, records[0].value) == (
        "broken-dist",
        "0.3",
        broken.value,
    )
    [message] = plugin_warnings(caught)
    assert "plugin 'broken' from distribution broken-dist 0.3" in message
    assert "ImportError: No module named 'missing_sdk'" in message
    assert list(m.hooks.tools()) == ["echo"]


def test_a_plugin_calling_sys_exit_on_import_is_only_a_failure(
    caught: list[warnings.WarningMessage],
) -> None:
    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("exits", raising(SystemExit(3)))])
    assert (
        record.status == "failed"
        and record.error == f"import failed: SystemExit: 3 (at {HERE}:{RAISE_LINE})"
    )


def test_unknown_hook_is_refused_and_rolled_back(caught: list[warnings.WarningMessage]) -> None:
    @hookimpl
    def harness_foo() -> None:
        return None

    m = manager()
    [record] = m.load_entry_points(
        [FakeEntryPoint("typo", lambda: module("typo", harness_foo=harness_foo))]
    )
    assert record.status == "failed"
    assert record.error is not None
    assert "'harness_foo' is not a harness hook" in record.error
    assert "harness_tools" in record.error  # lists the known hooks
    assert m.pm.get_plugin("typo") is None
    assert m.pm.hook.harness_foo.get_hookimpls() == []


def test_hookimpl_argument_not_in_the_spec_is_refused(
    caught: list[warnings.WarningMessage],
) -> None:
    @hookimpl
    def harness_declare_builtins(harness_id: str, flavour: str) -> None:
        return None

    m = manager()
    [record] = m.load_entry_points(
        [
            FakeEntryPoint(
                "extra-arg",
                lambda: module("extra_arg", harness_declare_builtins=harness_declare_builtins),
            )
        ]
    )
    assert record.status == "failed"
    assert record.error is not None and "flavour" in record.error
    assert "\n" not in record.error  # pluggy's multi-line message, on one line
    assert impl_plugins(m, "harness_declare_builtins") == []


def test_hookimpl_argument_with_a_default_is_refused(caught: list[warnings.WarningMessage]) -> None:
    @hookimpl
    def harness_declare_builtins(harness_id: str = "builtin") -> None:
        return None

    m = manager()
    [record] = m.load_entry_points(
        [
            FakeEntryPoint(
                "defaults",
                lambda: module("defaults", harness_declare_builtins=harness_declare_builtins),
            )
        ]
    )
    assert record.status == "failed"
    assert "have default values, which pluggy never passes" in (record.error or "")


def test_hook_function_without_the_decorator_is_refused(
    caught: list[warnings.WarningMessage],
) -> None:
    def harness_tools() -> list[HarnessTool]:
        return [echo_tool()]

    m = manager()
    [record] = m.load_entry_points(
        [FakeEntryPoint("undecorated", lambda: module("undecorated", harness_tools=harness_tools))]
    )
    assert record.status == "failed"
    assert "harness_tools is defined without the @hookimpl decorator" in (record.error or "")


@pytest.mark.parametrize("hook", ["harness_tools", "harness_adapters", "harness_cli_commands"])
def test_raising_inside_a_registration_hook_is_refused(
    hook: str, caught: list[warnings.WarningMessage]
) -> None:
    def impl() -> object:
        raise RuntimeError(f"{hook} exploded")

    impl.__name__ = hook
    m = manager()
    [record] = m.load_entry_points(
        [FakeEntryPoint("raiser", lambda: module("raiser", **{hook: hookimpl(impl)}))]
    )
    assert record.status == "failed"
    assert record.error is not None and record.error.startswith(
        f"registration failed: RuntimeError: {hook} exploded (at {HERE}:"
    )
    assert impl_plugins(m, hook) == []
    assert m.hooks.tools() == {}


@pytest.mark.parametrize(
    ("hook", "result", "fragment"),
    [
        ("harness_tools", ["not a tool"], "harness_tools must return a sequence of HarnessTool"),
        ("harness_adapters", ["claude"], "harness_adapters must return a mapping"),
        (
            "harness_adapters",
            {"claude": "not callable"},
            "must map a harness id to a callable factory",
        ),
        (
            "harness_cli_commands",
            [print],
            "harness_cli_commands must return a sequence of click.Command",
        ),
    ],
)
def test_registration_hooks_returning_the_wrong_shape_are_refused(
    hook: str, result: object, fragment: str, caught: list[warnings.WarningMessage]
) -> None:
    def impl() -> object:
        return result

    impl.__name__ = hook
    m = manager()
    [record] = m.load_entry_points(
        [FakeEntryPoint("shape", lambda: module("shape", **{hook: hookimpl(impl)}))]
    )
    assert record.status == "failed"
    assert fragment in (record.error or "")


# -- rollback of partial registration --------------------------------------------------------


class _SideEffectPolicy:
    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
        return ApprovalDecision(ApprovalStatus.DENIED, "left behind by a broken plugin")


def test_side_effect_registrations_of_a_failing_plugin_are_rolled_back(
    caught: list[warnings.WarningMessage],
) -> None:
    m = manager()
    extra = _SideEffectPolicy()

    @hookimpl
    def harness_tools() -> list[HarnessTool]:
        raise RuntimeError("half-initialized")

    def load() -> object:
        # What a plugin module importing the process-wide manager would do at import time.
        m.register(extra, "sneaky-extra")
        m.pm.register(_SideEffectPolicy(), name="sneaky-raw")
        return module("half", harness_tools=harness_tools)

    before = set(m.pm.get_plugins())
    [record] = m.load_entry_points([FakeEntryPoint("half", load)])
    assert record.status == "failed"
    assert set(m.pm.get_plugins()) == before
    assert m.record("sneaky-extra") is None
    assert [r.name for r in m.records()] == [*sorted(CORE_PLUGINS), "half"]
    assert sorted(impl_plugins(m, "harness_approve_call")) == ["permission-mode", "tool-approval"]


def test_a_plugin_whose_second_hook_fails_validation_leaves_no_first_hook(
    caught: list[warnings.WarningMessage],
) -> None:
    class HalfValid:
        # pluggy registers harness_approve_call, then rejects harness_declare_builtins.
        @hookimpl
        def harness_approve_call(self, call: ToolCall) -> None:
            return None

        @hookimpl
        def harness_declare_builtins(self, harness_id: str, bogus: int) -> None:
            return None

    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("half-valid", lambda: HalfValid)])
    assert record.status == "failed"
    assert "bogus" in (record.error or "")
    assert "half-valid" not in impl_plugins(m, "harness_approve_call")
    assert m.pm.get_plugin("half-valid") is None


def test_a_class_entry_point_registers_an_instance() -> None:
    class Pack:
        def __init__(self) -> None:
            self.tool = echo_tool("from-class")

        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            return [self.tool]

    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("class-pack", lambda: Pack)])
    assert (record.status, record.kind, record.hooks) == ("loaded", "tools", ("harness_tools",))
    assert isinstance(m.pm.get_plugin("class-pack"), Pack)
    assert list(m.hooks.tools()) == ["from-class"]


def test_a_class_that_cannot_be_instantiated_is_a_failure(
    caught: list[warnings.WarningMessage],
) -> None:
    class NeedsArgs:
        def __init__(self, setting: str) -> None:
            self.setting = setting

    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("needs-args", lambda: NeedsArgs)])
    assert record.status == "failed"
    assert "could not instantiate plugin class" in (record.error or "")
    assert "NeedsArgs" in (record.error or "")


# -- strict mode, disabling, idempotence -----------------------------------------------------


def test_strict_mode_raises_on_the_first_failure_naming_plugin_and_distribution() -> None:
    m = manager({"HARNESS_STRICT_PLUGINS": "1"})
    broken = FakeEntryPoint("broken", raising(ImportError("boom")), FakeDist("broken-dist", "0.3"))
    never = FakeEntryPoint("never", lambda: good_module())
    with pytest.raises(PluginLoadError) as info:
        m.load_entry_points([broken, never])
    assert info.value.plugin == "broken"
    assert info.value.distribution == "broken-dist 0.3"
    assert (
        "plugin 'broken' from distribution broken-dist 0.3: import failed: ImportError: boom"
        in str(info.value)
    )
    assert never.loads == 0


def test_strict_mode_still_rolls_back() -> None:
    @hookimpl
    def harness_tools() -> list[HarnessTool]:
        raise RuntimeError("nope")

    m = manager({"HARNESS_STRICT_PLUGINS": "true"})
    with pytest.raises(PluginLoadError, match="registration failed: RuntimeError: nope"):
        m.load_entry_points(
            [FakeEntryPoint("strict", lambda: module("strict", harness_tools=harness_tools))]
        )
    assert m.pm.get_plugin("strict") is None


def test_strict_mode_applies_to_in_memory_registration() -> None:
    @hookimpl
    def harness_foo() -> None:
        return None

    m = manager({"HARNESS_STRICT_PLUGINS": "1"})
    with pytest.raises(PluginLoadError, match="'harness_foo' is not a harness hook"):
        m.register(module("mem", harness_foo=harness_foo), "mem")


def test_in_memory_registration_is_validated_and_rolled_back(
    caught: list[warnings.WarningMessage],
) -> None:
    class Half:
        @hookimpl
        def harness_approve_call(self, call: ToolCall) -> None:
            return None

        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            raise RuntimeError("not today")

    m = manager()
    record = m.register(Half(), "half")
    assert record.status == "failed" and record.error is not None
    assert record.error.startswith(f"registration failed: RuntimeError: not today (at {HERE}:")
    assert m.pm.get_plugin("half") is None
    assert "half" not in impl_plugins(m, "harness_approve_call")
    assert [w for w in plugin_warnings(caught) if "plugin 'half'" in w]


def test_disabled_plugins_are_never_imported() -> None:
    m = manager({"HARNESS_DISABLE_PLUGINS": " heavy , other"})
    heavy = FakeEntryPoint("heavy", raising(AssertionError("imported although disabled")))
    kept = FakeEntryPoint("kept", lambda: good_module())
    records = m.load_entry_points([heavy, kept])
    assert heavy.loads == 0
    assert [(r.name, r.status) for r in records] == [("heavy", "disabled"), ("kept", "loaded")]
    assert records[0].distribution == "dist-heavy"


def test_core_defaults_are_named_plugins() -> None:
    m = manager()
    expected = {
        "permission-mode": PermissionModePolicy,
        "tool-approval": ToolApprovalPolicy,
        "default-executor": DefaultExecutor,
        "default-projection": DefaultProjection,
        "tool-timeout": ToolTimeoutPolicy,
        "error-policy": ErrorPolicy,
        "output-limit": OutputLimit,
    }
    for name, cls in expected.items():
        assert isinstance(m.pm.get_plugin(name), cls)
        record = m.record(name)
        assert record is not None
        assert (record.kind, record.status, record.distribution) == (
            "core",
            "loaded",
            "harness-agent-core",
        )
    assert set(CORE_PLUGINS) == set(expected)


def test_core_defaults_can_be_disabled() -> None:
    m = manager({"HARNESS_DISABLE_PLUGINS": "permission-mode"})
    assert m.pm.get_plugin("permission-mode") is None
    assert (
        m.record("permission-mode") is not None and m.record("permission-mode").status == "disabled"
    )  # type: ignore[union-attr]
    bash = BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH)
    call = ToolCall(tool_call_id="1", tool_name="bash", provider_executed=True)
    context = ApprovalContext(harness_id="x", tool=bash, permission_mode=PermissionMode.ALLOW_READS)
    assert m.hooks.approve_call(call, context).status is ApprovalStatus.NOT_APPLICABLE
    assert manager().hooks.approve_call(call, context).status is ApprovalStatus.USER_APPROVAL


def test_loading_twice_registers_nothing_twice() -> None:
    m = manager()
    ep = FakeEntryPoint("once", lambda: good_module())
    first = m.load_entry_points([ep])
    second = m.load_entry_points([ep])
    assert ep.loads == 1
    assert first == second
    assert impl_plugins(m, "harness_tools") == ["once"]
    assert m.register(m.pm.get_plugin("once"), "once") is first[0]
    assert impl_plugins(m, "harness_tools") == ["once"]


def test_a_failed_plugin_is_retried_and_can_recover(caught: list[warnings.WarningMessage]) -> None:
    attempts: list[int] = []

    def flaky() -> object:
        attempts.append(1)
        if len(attempts) == 1:
            raise ImportError("first time")
        return good_module("flaky")

    m = manager()
    ep = FakeEntryPoint("flaky", flaky)
    assert m.load_entry_points([ep])[0].status == "failed"
    assert m.load_entry_points([ep])[0].status == "loaded"
    assert impl_plugins(m, "harness_tools") == ["flaky"]


def test_two_entry_points_for_one_module_fail_the_second(
    caught: list[warnings.WarningMessage],
) -> None:
    shared = good_module("shared")
    m = manager()
    records = m.load_entry_points(
        [FakeEntryPoint("one", lambda: shared), FakeEntryPoint("two", lambda: shared)]
    )
    assert [r.status for r in records] == ["loaded", "failed"]
    assert impl_plugins(m, "harness_tools") == ["one"]


def test_entry_point_without_distribution() -> None:
    ep = FakeEntryPoint("nodist", lambda: good_module())
    ep.dist = None  # type: ignore[assignment]
    [record] = manager().load_entry_points([ep])
    assert (record.distribution, record.version) == (None, None)


def test_kind_is_derived_from_the_hooks() -> None:
    class Adapter:
        @hookimpl
        def harness_adapters(self) -> dict[str, Any]:
            return {"fake": lambda **settings: None}

    class Policy:
        @hookimpl
        def harness_filter_tools(self) -> None:
            return None

    m = manager()
    assert m.register(Adapter(), "adapter").kind == "adapter"
    assert m.register(Policy(), "policy").kind == "policy"
    assert m.register(good_module(), "pack").kind == "tools"
    assert list(m.hooks.adapters()) == ["fake"]


def test_record_json_shape() -> None:
    m = manager()
    record = m.register(
        good_module(), "pack", distribution="pack-dist", version="2.0", value="pack.plugin"
    )
    assert record.to_json() == {
        "name": "pack",
        "distribution": "pack-dist",
        "version": "2.0",
        "kind": "tools",
        "hooks": ["harness_tools"],
        "status": "loaded",
        "error": None,
        "value": "pack.plugin",
    }


def test_the_process_wide_manager_is_published_before_discovery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[HarnessPluginManager] = []

    def load() -> object:
        # A plugin that asks for the process-wide manager while being imported.
        seen.append(plugins_module.get_plugin_manager())
        return good_module("reentrant")

    ep = FakeEntryPoint("reentrant", load)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [ep])
    monkeypatch.setattr(plugins_module, "_default", None)
    default = plugins_module.get_plugin_manager()
    assert seen == [default]
    assert plugins_module.get_plugin_manager() is default
    assert list(default.hooks.tools()) == ["echo"]
    plugins_module.reset_plugin_manager()


# -- bad returns are named (issue 16, item 16) -------------------------------------------------


class _Opaque:
    def __repr__(self) -> str:
        return "<Opaque thing 42>"


def test_a_non_tool_from_harness_tools_is_named_with_the_plugin(caught: list[warnings.WarningMessage]) -> None:
    @hookimpl
    def harness_tools() -> object:
        return [_Opaque()]

    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("opaque-pack", lambda: module("opaque-pack",
                                                                               harness_tools=harness_tools))])
    assert record.status == "failed"
    assert "_Opaque <Opaque thing 42>" in (record.error or "")
    [warning] = [str(w.message) for w in caught if "opaque-pack" in str(w.message)]
    assert "skipped plugin 'opaque-pack'" in warning and "<Opaque thing 42>" in warning


def test_a_tool_whose_execute_is_not_callable_fails_discovery(caught: list[warnings.WarningMessage]) -> None:
    import attrs

    from harness_core import define_harness_tool

    good = define_harness_tool(name="fine", description="d", input={"type": "object"}, execute=lambda v, c: "ok")
    with pytest.raises(TypeError, match="execute"):
        attrs.evolve(good, execute="not callable")
    broken = attrs.evolve(good)
    object.__setattr__(broken, "execute", "not callable")  # past the attrs validator

    @hookimpl
    def harness_tools() -> object:
        return [broken]

    m = manager()
    [record] = m.load_entry_points([FakeEntryPoint("evolved", lambda: module("evolved", harness_tools=harness_tools))])
    assert record.status == "failed"
    assert "tool 'fine': its execute is not callable: str 'not callable'" in (record.error or "")
    assert m.hooks.tools() == {}
