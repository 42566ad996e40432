"""Plugin failures fail closed where security is at stake, and only there.

* a policy (``harness_approve_call`` / ``harness_filter_tools``) that fails to import or
  register makes agent construction raise, naming it and the error; disabling it opts out;
* a policy or filter returning the wrong type denies / refuses, naming the plugin;
* an exception in any hook names the plugin and the hook;
* a tool pack that fails is skipped with a warning, shown as failed, and never breaks
  other agents.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    ExecutionContext,
    FilterRequest,
    HarnessConfigurationError,
    HarnessPluginManager,
    HarnessTool,
    PermissionMode,
    PluginHookError,
    PluginLoadWarning,
    ProjectionContext,
    ToolCall,
    ToolContext,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)
from harness_core.parts.models import ErrorPart, ToolOutputDeniedPart
from harness_core.testing import CallBuiltin, CallHost, EchoResults, ScriptedAdapter


class EntryPoint:
    """An entry point that imports ``value`` for real (so its source is on disk)."""

    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value
        self.dist = None

    def load(self) -> object:
        module, _, attr = self.value.partition(":")
        loaded = importlib.import_module(module)
        return getattr(loaded, attr) if attr else loaded


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Callable[[str, str], None]]:
    """``write(module, source)`` puts a module on ``sys.path`` for this test."""
    sys.path.insert(0, str(tmp_path))
    written: list[str] = []

    def write(module: str, source: str) -> None:
        path = tmp_path.joinpath(*module.split("."))
        for parent in list(path.parents)[::-1]:
            if parent != tmp_path and tmp_path in parent.parents and not (parent / "__init__.py").exists():
                parent.mkdir(exist_ok=True)
                (parent / "__init__.py").write_text("", encoding="utf-8")
        path.with_suffix(".py").write_text(source, encoding="utf-8")
        written.append(module.split(".")[0])

    yield write
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] in written]:
        del sys.modules[name]


def load(*entry_points: EntryPoint, env: dict[str, str] | None = None) -> HarnessPluginManager:
    manager = create_plugin_manager(load_entry_points=False, env=env or {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        manager.load_entry_points(entry_points)
    return manager


BROKEN_POLICY = '''
from harness_core import hookimpl
raise ImportError("the rules file format changed")

@hookimpl
def harness_approve_call(call, context):
    return None
'''


def rm_tool(ran: list[str]) -> HarnessTool:
    return define_harness_tool(name="rm_all", description="Deletes.", input={"type": "object"},
                               execute=lambda input, ctx: ran.append("rm") or "gone")


# -- a policy that fails to load: agents refuse to start ---------------------------------


def test_a_policy_that_fails_to_import_makes_agent_construction_raise(site: Callable[[str, str], None]) -> None:
    site("org_policy_mod", BROKEN_POLICY)
    manager = load(EntryPoint("org-policy", "org_policy_mod"))
    record = manager.record("org-policy")
    assert record is not None and (record.status, record.kind) == ("failed", "policy")
    with pytest.raises(HarnessConfigurationError) as info:
        ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)
    message = str(info.value)
    assert "'org-policy'" in message and "implements harness_approve_call" in message
    assert "ImportError: the rules file format changed" in message
    assert "HARNESS_DISABLE_PLUGINS=org-policy" in message


def test_disabling_the_failed_policy_is_the_opt_out(site: Callable[[str, str], None]) -> None:
    site("org_policy_mod", BROKEN_POLICY)
    manager = load(EntryPoint("org-policy", "org_policy_mod"), env={"HARNESS_DISABLE_PLUGINS": "org-policy"})
    ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)  # builds


def test_a_policy_module_in_a_package_is_read_without_running_the_package(site: Callable[[str, str], None]) -> None:
    site("acme.__init__", 'raise RuntimeError("the package __init__ must not run during the scan")\n')
    site("acme.impl", "from harness_core import hookimpl\n\n@hookimpl\ndef harness_filter_tools(tools, request):\n"
                      "    return ['bash']\n")
    site("acme.plugin", "from acme.impl import harness_filter_tools\n")
    manager = load(EntryPoint("acme", "acme.plugin"))
    record = manager.record("acme")
    assert record is not None and record.guard == "implements harness_filter_tools"
    assert "RuntimeError: the package __init__ must not run" in (record.error or "")


def test_a_policy_whose_source_cannot_be_read_counts_as_a_policy() -> None:
    def missing() -> object:
        raise ModuleNotFoundError("No module named 'vanished_policy'")

    ep = EntryPoint("vanished", "vanished_policy:Policy")
    ep.load = missing  # type: ignore[method-assign]
    manager = load(ep)
    with pytest.raises(HarnessConfigurationError, match=r"may implement harness_approve_call or harness_filter_tools "
                                                        r"\(its source \(vanished_policy\) could not be read\)"):
        ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)


def test_a_policy_with_a_misspelled_argument_fails_closed_and_its_denials_do_not_vanish() -> None:
    class Policy:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, contxt: ApprovalContext) -> ApprovalDecision:
            return ApprovalDecision(ApprovalStatus.DENIED, "never rm")

    class Loader:
        name, value, dist = "typo-policy", "typo_policy:Policy", None

        @staticmethod
        def load() -> object:
            return Policy

    manager = load(Loader())  # type: ignore[arg-type]
    ran: list[str] = []
    with pytest.raises(HarnessConfigurationError, match=r"'typo-policy' implements harness_approve_call but failed "
                                                        r"to load: registration failed"):
        ScriptedAdapter([[[CallHost("rm_all")], [EchoResults()]]]).agent(tools=[rm_tool(ran)], plugin_manager=manager)
    # Even a caller that skips construction checks gets denials.
    decision = manager.hooks.approve_call(ToolCall(tool_call_id="c", tool_name="rm_all"),
                                          ApprovalContext(harness_id="x", tool=rm_tool(ran)))
    assert decision.status is ApprovalStatus.DENIED and "typo-policy" in (decision.reason or "")
    assert ran == []


def test_a_tool_pack_that_fails_to_import_is_only_skipped(site: Callable[[str, str], None]) -> None:
    site("broken_pack", 'from harness_core import hookimpl\nraise RuntimeError("broken pack")\n\n'
                        '@hookimpl\ndef harness_tools():\n    return []\n')
    manager = load(EntryPoint("broken-pack", "broken_pack"))
    record = manager.record("broken-pack")
    assert record is not None and record.status == "failed" and record.guard is None
    ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)  # builds


# -- wrong result types ------------------------------------------------------------------


@pytest.mark.parametrize(("result", "problem"), [
    ("bash", "returned the string 'bash', not a list of tool names"),
    (42, "returned int, not a list of tool names"),
    (["read", 7], "returned int 7 among the tool names"),
])
@pytest.mark.anyio
async def test_a_filter_returning_the_wrong_type_refuses_the_session(result: object, problem: str) -> None:
    class Filter:
        @hookimpl
        def harness_filter_tools(self, tools: Sequence[Any], request: FilterRequest) -> object:
            return result

    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "echo hi"})], [EchoResults()]]])
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Filter(), "org-filter")
    agent = adapter.agent(plugin_manager=manager)
    with pytest.raises(HarnessConfigurationError) as info:
        await agent.create_session()
    assert str(info.value) == f"plugin 'org-filter' failed in harness_filter_tools: {problem}"
    assert adapter.starts == []  # the runtime never started


@pytest.mark.anyio
async def test_a_filter_that_raises_refuses_the_session_naming_plugin_and_hook() -> None:
    class Filter:
        @hookimpl
        def harness_filter_tools(self, tools: Sequence[Any], request: FilterRequest) -> list[str]:
            raise KeyError("policy table")

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Filter(), "org-filter")
    agent = ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)
    with pytest.raises(PluginHookError, match=r"plugin 'org-filter' failed in harness_filter_tools: KeyError"):
        await agent.create_session()


@pytest.mark.anyio
async def test_a_policy_returning_the_wrong_type_denies_naming_the_plugin(tmp_path: Path) -> None:
    class Sloppy:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> object:
            return "approved"

    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "touch pwned"})], [EchoResults()]]],
                              workspace=tmp_path)
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Sloppy(), "sloppy")
    agent = adapter.agent(plugin_manager=manager)
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "approval policy 'sloppy' returned str, not an ApprovalDecision" in (denied.reason or "")
    assert not (tmp_path / "pwned").exists()


# -- exceptions in the other hooks name plugin and hook ----------------------------------


def test_declare_builtins_raising_names_the_plugin() -> None:
    class Adapter:
        @hookimpl
        def harness_adapters(self) -> dict[str, Any]:
            return {"mine": lambda **settings: None}

        @hookimpl
        def harness_declare_builtins(self, harness_id: str) -> None:
            raise RuntimeError("no manifest")

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Adapter(), "my-adapter")
    with pytest.raises(PluginHookError, match=r"plugin 'my-adapter' failed in harness_declare_builtins: "
                                              r"RuntimeError: no manifest"):
        manager.hooks.builtins("mine")
    # Another harness is not broken by it: the plugin is skipped (and shown as failed).
    with pytest.warns(PluginLoadWarning, match="'my-adapter' failed in harness_declare_builtins"):
        assert manager.hooks.builtins("other") == []
    assert manager.record("my-adapter").status == "failed"  # type: ignore[union-attr]


def test_project_event_raising_is_an_error_part_naming_the_plugin() -> None:
    class Projection:
        @hookimpl(tryfirst=True)
        def harness_project_event(self, event: object, context: ProjectionContext) -> None:
            raise ValueError("unknown event shape")

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Projection(), "my-projection")
    (part,) = manager.hooks.project_event({"type": "x"}, ProjectionContext(harness_id="h"))
    assert isinstance(part, ErrorPart) and part.error_type == "projection"
    assert "plugin 'my-projection' failed in harness_project_event: ValueError: unknown event shape" in part.error


def test_an_executor_raising_when_called_is_an_error_result_naming_it() -> None:
    class Executor:
        @hookimpl(tryfirst=True)
        def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> None:
            raise RuntimeError("no worker")

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Executor(), "remote-exec")
    tool = rm_tool([])
    context = ExecutionContext(tool=tool, tool_context=ToolContext(tool_call_id="c", tool_name="rm_all"))
    output = anyio.run(manager.hooks.execute_tool, ToolCall(tool_call_id="c", tool_name="rm_all"), context)
    assert output.is_error
    assert "plugin 'remote-exec' failed in harness_execute_tool: RuntimeError: no worker" in output.content


# -- tool packs: skipped, never breaking other agents ------------------------------------


@pytest.mark.anyio
async def test_a_tool_pack_whose_harness_tools_raises_later_is_skipped_and_other_agents_build() -> None:
    calls = {"n": 0}

    class Flaky:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            calls["n"] += 1
            if calls["n"] > 1:  # fine at load time, broken at agent construction
                raise OSError("tool index unreadable")
            return [define_harness_tool(name="flaky", description="F.", input={"type": "object"},
                                        execute=lambda i, c: "x")]

    class Good:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            return [define_harness_tool(name="good", description="G.", input={"type": "object"},
                                        execute=lambda i, c: "good ran")]

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Flaky(), "flaky-pack")
    manager.register(Good(), "good-pack")
    adapter = ScriptedAdapter([[[CallHost("good")], [EchoResults()]]])
    with pytest.warns(PluginLoadWarning, match=r"plugin 'flaky-pack' failed in harness_tools: OSError: tool index"):
        agent = adapter.agent(plugin_manager=manager)
    assert sorted(agent.host_tools) == ["good"]
    record = manager.record("flaky-pack")
    assert record is not None and record.status == "failed" and "OSError: tool index unreadable" in (record.error or "")
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert "good ran" in result.text


def test_a_policy_whose_harness_tools_raises_later_fails_closed() -> None:
    calls = {"n": 0}

    class PolicyWithTools:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            calls["n"] += 1
            if calls["n"] > 1:
                raise OSError("gone")
            return []

        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> None:
            return None

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(PolicyWithTools(), "policy-pack")
    with pytest.raises(PluginHookError, match="plugin 'policy-pack' failed in harness_tools: OSError: gone"):
        ScriptedAdapter([[[EchoResults()]]]).agent(plugin_manager=manager)


def test_permission_mode_is_still_enforced_when_nothing_failed() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    assert manager.failed_guards() == []
    assert manager.hooks.builtin_calls_need_approval(PermissionMode.ALLOW_READS)


# -- wrappers fail closed too ------------------------------------------------------------


def test_an_approval_wrapper_that_raises_or_returns_garbage_denies_naming_it() -> None:
    class Raising:
        @hookimpl(wrapper=True)
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Any:
            yield
            raise RuntimeError("audit log full")

    class Garbage:
        @hookimpl(wrapper=True)
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Any:
            yield
            return ["approved"]

    call = ToolCall(tool_call_id="c", tool_name="rm_all")
    context = ApprovalContext(harness_id="x", tool=rm_tool([]), tool_approval={"rm_all": "approved"})
    for plugin, problem in ((Raising(), "failed (RuntimeError: audit log full)"),
                            (Garbage(), "returned str, not an ApprovalDecision")):
        manager = create_plugin_manager(load_entry_points=False, env={})
        manager.register(plugin, "audit")
        decision = manager.hooks.approve_call(call, context)
        assert decision.status is ApprovalStatus.DENIED
        assert decision.reason == f"approval policy 'audit' {problem}; denied for safety"


def test_a_filter_wrapper_returning_garbage_refuses_naming_it() -> None:
    class Garbage:
        @hookimpl(wrapper=True)
        def harness_filter_tools(self, tools: Sequence[Any], request: FilterRequest) -> Any:
            yield
            return ["bash"]  # a list of results is expected: ["bash"] is a list of one str result

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Garbage(), "trim")
    with pytest.raises(PluginHookError, match=r"plugin 'trim' failed in harness_filter_tools: returned the string 'bash'"):
        manager.hooks.filter_tools([], FilterRequest(harness_id="x"))


def test_a_tools_wrapper_that_raises_is_skipped_naming_itself_unless_it_guards() -> None:
    class Broken:
        @hookimpl(wrapper=True)
        def harness_tools(self) -> Any:
            yield
            raise LookupError("registry down")

    class Pack:
        @hookimpl
        def harness_tools(self) -> list[HarnessTool]:
            return [rm_tool([])]

    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(Pack(), "pack")
    manager.register(Broken(), "registry")
    with pytest.warns(PluginLoadWarning, match=r"plugin 'registry' failed in harness_tools: LookupError: registry down"):
        assert list(manager.hooks.tools()) == ["rm_all"]
    assert manager.record("registry").status == "failed"  # type: ignore[union-attr]

    class GuardingBroken(Broken):
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> None:
            return None

    guarded = create_plugin_manager(load_entry_points=False, env={})
    guarded.register(GuardingBroken(), "registry")
    with pytest.raises(PluginHookError, match=r"plugin 'registry' failed in harness_tools: LookupError"):
        guarded.hooks.tools()
