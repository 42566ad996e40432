"""The restricted view handed to host tools holds nothing that reaches the real sandbox.

Every probe a tool could try on ``ctx.sandbox`` (``vars()``, ``__dict__``, ``__slots__``
names, ``_``-prefixed guesses, ``object.__getattribute__``, ``gc.get_referents``, setting
attributes on the view or its class) finds no object that can stop or destroy the sandbox
or change its policy; the view still reads, writes and runs commands.
"""

from __future__ import annotations

import copy
import gc
from pathlib import Path
from typing import Any

import pytest

from harness_core import LocalSandbox, SandboxView, define_harness_tool
from harness_core.sandbox import restricted_view
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter

pytestmark = pytest.mark.anyio

GUESSES = (
    "_sandbox", "sandbox", "_inner", "inner", "_target", "_wrapped", "__wrapped__", "_obj",
    "__self__", "_real", "_paths", "_processes", "_env", "_stopped", "stop", "resolve",
    "restricted", "write_bytes", "read_bytes", "command_env", "relative", "_home",
    "_check_running", "default_timeout", "max_output_bytes", "__dict__",
)
"""Names a tool might try on the view; none may lead to the sandbox."""

DANGEROUS = ("stop", "restricted", "_paths", "command_env", "_processes", "_env",
             "_stopped", "_inherit", "_home_setting", "default_timeout", "max_output_bytes")
"""Members of a LocalSandbox that stop it or change (or read) its policy."""


@pytest.fixture
def sandbox(tmp_path: Path) -> LocalSandbox:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return LocalSandbox(workspace, env={"POLICY": "kept"}, default_timeout=30)


def leads_to_sandbox(value: object, sandbox: LocalSandbox) -> bool:
    """True when ``value`` is the sandbox, or has a member that stops it or changes its policy."""
    if value is sandbox or isinstance(value, LocalSandbox):
        return True
    return any(_has(value, name) for name in DANGEROUS)


def _has(value: object, name: str) -> bool:
    try:
        object.__getattribute__(value, name)
    except AttributeError:
        return False
    except Exception:  # a probe that fails reaches nothing
        return False
    return True


def test_the_view_has_no_dict_and_no_slots(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    with pytest.raises(TypeError):
        vars(view)
    assert not hasattr(view, "__dict__")
    for cls in type(view).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            assert not _has(view, slot), slot
    assert type(view).__slots__ == ()


def test_no_attribute_of_the_view_reaches_the_sandbox(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    names = set(dir(view)) | set(GUESSES)
    for name in sorted(names):
        for getter in (getattr, object.__getattribute__):
            try:
                value = getter(view, name)
            except AttributeError:
                continue
            assert not leads_to_sandbox(value, sandbox), (getter.__name__, name)
    for name in GUESSES:
        if name.startswith("_") and not name.startswith("__"):
            assert not hasattr(view, name), name
    assert not hasattr(view, "stop") and not hasattr(view, "resolve") and not hasattr(view, "restricted")


def test_gc_referents_of_the_view_hold_no_sandbox(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    referents = gc.get_referents(view)
    assert referents, "the view refers to its class at least"
    for referent in referents:
        assert not leads_to_sandbox(referent, sandbox), referent
    assert all(r is type(view) for r in referents)


def test_the_old_private_attribute_is_gone(sandbox: LocalSandbox) -> None:
    view: Any = sandbox.restricted()
    with pytest.raises(AttributeError):
        view._sandbox.stop()  # the attack of the issue


def test_nothing_can_be_added_to_the_view_or_its_class(sandbox: LocalSandbox) -> None:
    view: Any = sandbox.restricted()
    with pytest.raises(AttributeError):
        view._sandbox = sandbox
    with pytest.raises(AttributeError):
        view.read_text_file = None
    with pytest.raises(AttributeError):
        type(view).stop = lambda self: None
    with pytest.raises(AttributeError):
        type(view).read_text_file = None
    with pytest.raises(AttributeError):
        del type(view).run_command
    with pytest.raises(AttributeError):
        object.__setattr__(view, "_sandbox", sandbox)


async def test_copies_of_the_view_are_views_too(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    for clone in (copy.copy(view), copy.deepcopy(view)):
        assert not leads_to_sandbox(clone, sandbox)
        await clone.write_text_file("c.txt", "copied")
    assert (sandbox.root / "c.txt").read_text() == "copied"


async def test_the_view_reads_writes_and_runs_inside_the_sandbox(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    assert isinstance(view, SandboxView)
    assert view.root == sandbox.root
    assert repr(view) == f"SandboxView({str(sandbox.root)!r})"
    await view.write_text_file("d/notes.txt", "héllo")
    assert (sandbox.root / "d" / "notes.txt").read_text(encoding="utf-8") == "héllo"
    assert await view.read_text_file("d/notes.txt") == "héllo"
    result = await view.run_command('printf %s "$POLICY"; pwd', timeout=10)
    assert result.exit_code == 0
    assert result.stdout == f"kept{sandbox.root}\n"
    with pytest.raises(PermissionError):
        await view.read_text_file("../outside.txt")
    with pytest.raises(PermissionError):
        await view.write_text_file("/etc/harness-planted", "x")


async def test_the_view_follows_the_sandbox_lifecycle(sandbox: LocalSandbox) -> None:
    view = sandbox.restricted()
    await sandbox.stop()
    with pytest.raises(RuntimeError, match="stopped"):
        await view.run_command("true")
    with pytest.raises(RuntimeError, match="stopped"):
        await view.write_text_file("late.txt", "x")


async def test_two_views_share_only_the_sandbox(sandbox: LocalSandbox) -> None:
    first, second = sandbox.restricted(), sandbox.restricted()
    assert type(first) is not type(second)
    await first.write_text_file("one.txt", "1")
    assert await second.read_text_file("one.txt") == "1"


async def test_restricted_view_wraps_any_sandbox_view(sandbox: LocalSandbox) -> None:
    inner = sandbox.restricted()
    assert restricted_view(inner) is inner

    class Imitation(type(inner)):  # type: ignore[misc]
        __slots__ = ()

    imitation = Imitation()
    assert restricted_view(imitation) is not imitation
    outer = restricted_view(sandbox)
    assert outer is not inner and not leads_to_sandbox(outer, sandbox)
    await outer.write_text_file("wrapped.txt", "w")
    assert await inner.read_text_file("wrapped.txt") == "w"


class CarelessSandbox:
    """A Sandbox implementation whose ``restricted()`` hands out the sandbox itself."""

    def __init__(self, inner: LocalSandbox) -> None:
        self.inner = inner
        self.stopped = False

    @property
    def root(self) -> Path:
        return self.inner.root

    def resolve(self, path: str) -> Path:
        return self.inner.resolve(path)

    def restricted(self) -> SandboxView:
        return self

    async def read_text_file(self, path: str) -> str:
        return await self.inner.read_text_file(path)

    async def write_text_file(self, path: str, content: str) -> None:
        await self.inner.write_text_file(path, content)

    async def run_command(self, command: str | list[str], *, timeout: float | None = None,
                          env: Any = None) -> Any:
        return await self.inner.run_command(command, timeout=timeout, env=env)

    async def spawn(self, command: str | list[str], *, env: Any = None) -> Any:
        return await self.inner.spawn(command, env=env)

    async def stop(self) -> None:
        self.stopped = True
        await self.inner.stop()


async def test_the_core_seals_the_view_of_any_sandbox(sandbox: LocalSandbox) -> None:
    """Even a Sandbox whose ``restricted()`` returns itself never reaches tools unsealed."""
    careless = CarelessSandbox(sandbox)
    seen: dict[str, Any] = {}

    async def probe(input: dict[str, Any], ctx: Any) -> str:
        seen["view"] = ctx.sandbox
        await ctx.sandbox.write_text_file("p.txt", "probed")
        return await ctx.sandbox.read_text_file("p.txt")

    tool = define_harness_tool(name="probe", description="Probe.", input={"type": "object"}, execute=probe)
    adapter = ScriptedAdapter([[[CallHost("probe", {}, id="p1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool])
    session = await agent.create_session(sandbox=careless)
    result = await agent.generate(session=session, prompt="go")
    assert result.text == "probe: probed"
    view = seen["view"]
    assert view is not careless and not _has(view, "stop") and not _has(view, "inner")
    assert all(r is type(view) for r in gc.get_referents(view))
    assert careless.stopped is False


async def test_a_host_tool_cannot_stop_the_session_sandbox(tmp_path: Path) -> None:
    """End to end: a tool probing ``ctx.sandbox`` through the agent reaches nothing."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    probes: dict[str, Any] = {}

    async def attack(input: dict[str, Any], ctx: Any) -> str:
        view = ctx.sandbox
        probes["private"] = _has(view, "_sandbox")
        probes["vars"] = _raises(lambda: vars(view))
        probes["referents"] = [type(r).__name__ for r in gc.get_referents(view)]
        probes["stop"] = _has(view, "stop") or _has(type(view), "stop")
        await view.write_text_file("tool.txt", "still works")
        result = await view.run_command("cat tool.txt")
        return result.stdout

    tool = define_harness_tool(name="attack", description="Probe the sandbox.", input={"type": "object"},
                               execute=attack)
    adapter = ScriptedAdapter([[[CallHost("attack", {}, id="a1")], [EchoResults()]]])
    agent = adapter.agent(tools=[tool])
    sandbox = LocalSandbox(workspace)
    session = await agent.create_session(sandbox=sandbox, session_id="s-1")
    result = await agent.generate(session=session, prompt="go")
    assert result.text == "attack: still works"
    assert probes == {"private": False, "vars": True, "referents": ["_SealedClass"], "stop": False}
    after = await sandbox.run_command("echo alive")
    assert after.stdout == "alive\n"


def _raises(probe: Any) -> bool:
    try:
        probe()
    except TypeError:
        return True
    return False


async def test_without_a_session_sandbox_tools_get_none(tmp_path: Path) -> None:
    """docs/sandbox.md: ``ctx.sandbox`` is ``None`` when the session was created without one."""
    from harness_core import ToolOutput

    async def count_lines(input: dict[str, Any], ctx: Any) -> str | ToolOutput:
        if ctx.sandbox is None:
            return ToolOutput(content="count_lines needs a session sandbox", is_error=True)
        text = await ctx.sandbox.read_text_file(input["path"])
        return str(len(text.splitlines()))

    tool = define_harness_tool(name="count_lines", description="Count lines.", execute=count_lines,
                               input={"type": "object", "properties": {"path": {"type": "string"}}})
    (tmp_path / "f.txt").write_text("a\nb\n")
    script = [[[CallHost("count_lines", {"path": "f.txt"}, id="c1")], [EchoResults()]]]
    without = ScriptedAdapter(script, workspace=tmp_path)
    agent = without.agent(tools=[tool])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert result.text == "count_lines: count_lines needs a session sandbox"
    with_sandbox = ScriptedAdapter(script)
    agent = with_sandbox.agent(tools=[tool])
    session = await agent.create_session(sandbox=LocalSandbox(tmp_path))
    result = await agent.generate(session=session, prompt="go")
    assert result.text == "count_lines: 2"
