"""define_harness_tool: the option rules, and the frozen HarnessTool it returns."""

from __future__ import annotations

import functools
from typing import Any

import attrs
import pydantic
import pytest

from harness_core import (
    HarnessTool,
    ToolContext,
    ToolDefinitionError,
    ToolOutput,
    ToolResources,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
)
from harness_core.errors import ToolNameConflictError

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}


def make(**overrides: Any) -> HarnessTool:
    options: dict[str, Any] = {"name": "echo", "description": "Echo the text back.", "input": EMPTY}
    options.update(overrides)
    return define_harness_tool(**options)


# -- name ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "Z", "0", "read_file", "web-search", "A1_b-2", "x" * 64])
def test_valid_names(name: str) -> None:
    assert make(name=name).name == name


@pytest.mark.parametrize(
    "name",
    ["", "x" * 65, "has space", "dot.name", "slash/name", "ünïcode", "tab\t", "trailing\n", "emoji😀", 5, None],
)
def test_invalid_names_are_refused_stating_the_rule_and_the_value(name: object) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        make(name=name)
    message = str(info.value)
    assert "1 to 64 characters of letters, digits, '_' or '-'" in message
    assert repr(name) in message


# -- description ---------------------------------------------------------------------------


@pytest.mark.parametrize("description", ["", "   ", "\n\t ", None, 3])
def test_empty_description_is_refused(description: object) -> None:
    with pytest.raises(ToolDefinitionError, match=r"tool 'echo': description must be a non-empty string"):
        make(description=description)


def test_description_with_surrounding_whitespace_is_kept_as_given() -> None:
    assert make(description="  Echo.  ").description == "  Echo.  "


# -- options -------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["readOnly", "inputSchema", "timeout", "needs_approval"])
def test_unknown_options_are_refused_by_name(option: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        make(**{option: True})
    message = str(info.value)
    assert f"unknown option {option!r}" in message
    assert "known options: " in message and "read_only" in message


@pytest.mark.parametrize("missing", ["name", "description", "input"])
def test_required_options(missing: str) -> None:
    options: dict[str, Any] = {"name": "echo", "description": "Echo.", "input": EMPTY}
    del options[missing]
    with pytest.raises(ToolDefinitionError, match=f"missing required option {missing!r}"):
        define_harness_tool(**options)


def test_defaults() -> None:
    tool = make()
    assert tool.read_only is False
    assert tool.resources is None
    assert tool.execute is None and tool.client_side is True
    assert tool.resources_for({}) is None
    assert tool.provider_executed is False


@pytest.mark.parametrize("value", [1, "yes", None])
def test_read_only_must_be_a_bool(value: object) -> None:
    with pytest.raises(ToolDefinitionError, match="read_only must be a bool"):
        make(read_only=value)


@pytest.mark.parametrize("option", ["execute", "resources", "to_model_output"])
def test_callable_options_must_be_callable(option: str) -> None:
    with pytest.raises(ToolDefinitionError, match=f"{option} must be callable, got str"):
        make(**{option: "not callable"})


def _no_args() -> str:
    return "x"


def _one(input: Any) -> str:
    return "x"


def _three(input: Any, context: Any, extra: Any) -> str:
    return "x"


def _keyword_only(input: Any, context: Any, *, flag: bool) -> str:
    return "x"


def _keywords_only(*, input: Any, context: Any) -> str:
    return "x"


@pytest.mark.parametrize(
    ("option", "function", "signature", "arguments"),
    [
        ("execute", lambda: "x", "()", "execute(input, context), so it must accept 2 positional arguments"),
        ("execute", _no_args, "()", "execute(input, context), so it must accept 2 positional arguments"),
        ("execute", _one, "(input: 'Any')", "execute(input, context)"),
        ("execute", _three, "(input: 'Any', context: 'Any', extra: 'Any')", "execute(input, context)"),
        ("execute", _keyword_only, "(input: 'Any', context: 'Any', *, flag: 'bool')", "execute(input, context)"),
        ("execute", _keywords_only, "(*, input: 'Any', context: 'Any')", "execute(input, context)"),
        ("resources", lambda: None, "()", "resources(input), so it must accept 1 positional argument,"),
        ("resources", lambda a, b: None, "(a, b)", "resources(input)"),
        ("to_model_output", lambda: "", "()", "to_model_output(result), so it must accept 1 positional argument,"),
        ("to_model_output", _three, "(input: 'Any', context: 'Any', extra: 'Any')", "to_model_output(result)"),
    ],
)
def test_callables_that_cannot_take_their_arguments_are_refused(
    option: str, function: Any, signature: str, arguments: str
) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        make(**{option: function})
    message = str(info.value)
    assert message.startswith(f"tool 'echo': {option} is called as {arguments}")
    assert f"but its signature is {signature}" in message


class _Callable:
    def __call__(self, input: Any, context: Any) -> str:
        return "called"

    def method(self, input: Any, context: Any) -> str:
        return "method"


async def _async_execute(input: Any, context: Any) -> str:
    return "x"


def _defaults(input: Any, context: Any = None, extra: int = 1) -> str:
    return "x"


@pytest.mark.parametrize(
    "function",
    [
        lambda input, context: "x",
        lambda *args: "x",
        lambda input, *rest, **kw: "x",
        _defaults,
        _async_execute,
        _Callable(),
        _Callable().method,
        functools.partial(_three, extra=1),
        functools.partial(lambda prefix, input, context: "x", "p"),
    ],
)
def test_execute_signatures_that_take_two_positional_arguments_are_accepted(function: Any) -> None:
    assert make(execute=function).execute is function


def test_callables_without_a_signature_are_accepted() -> None:
    # Some builtins (str, getattr, max) have no introspectable signature: nothing to check.
    tool = make(to_model_output=str, resources=max, execute=getattr)
    assert tool.to_model_output is str


def test_context_schema_must_be_a_pydantic_model() -> None:
    with pytest.raises(ToolDefinitionError, match="context_schema must be a pydantic model class"):
        make(context_schema={"type": "object"})

    class Ctx(pydantic.BaseModel):
        user_id: str

    assert make(context_schema=Ctx).context_schema is Ctx


def test_resources_maps_validated_input() -> None:
    tool = make(
        input={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        resources=lambda input: ToolResources(paths=[input["path"]]),
    )
    resources = tool.resources_for(tool.validate({"path": "src/a.py"}))
    assert resources == ToolResources(paths=("src/a.py",))


def test_tool_resources_keeps_a_single_path_string_whole() -> None:
    assert ToolResources(paths="src/a.py").paths == ("src/a.py",)
    assert ToolResources(paths=["a", "b"], command="ls").paths == ("a", "b")


# -- the result is frozen -------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [("name", "other"), ("read_only", True), ("execute", print)])
def test_harness_tool_is_frozen(field: str, value: object) -> None:
    tool = make()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(tool, field, value)


def test_tool_resources_and_context_are_frozen() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ToolResources(paths=["a"]).command = "rm"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ToolContext(tool_call_id="1", tool_name="t").tool_name = "u"  # type: ignore[misc]


def test_execute_receives_validated_input_and_context() -> None:
    seen: list[tuple[Any, ToolContext]] = []

    def execute(input: Any, context: ToolContext) -> str:
        seen.append((input, context))
        return "ok"

    tool = make(execute=execute)
    context = ToolContext(tool_call_id="c1", tool_name="echo")
    assert tool.execute is not None
    assert tool.execute(tool.validate("{}"), context) == "ok"
    assert seen == [({}, context)]
    assert not tool.client_side


# -- harness_tools(): duplicate names across plugins ---------------------------------------


class _Pack:
    def __init__(self, *tools: HarnessTool) -> None:
        self._tools = list(tools)

    @hookimpl
    def harness_tools(self) -> list[HarnessTool]:
        return self._tools


def test_tools_from_every_pack_are_collected_with_their_pack() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Pack(make(name="a")), "pack-a")
    manager.register(_Pack(make(name="b"), make(name="c")), "pack-b")
    tools = manager.hooks.tools()
    assert {name: plugin for name, (plugin, _) in tools.items()} == {"a": "pack-a", "b": "pack-b", "c": "pack-b"}


def test_same_tool_name_from_two_plugins_is_an_error_naming_both() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Pack(make(name="search")), "first-pack", distribution="first-dist", version="1.0")
    manager.register(_Pack(make(name="search", description="Another.")), "second-pack")
    with pytest.raises(ToolNameConflictError) as info:
        manager.hooks.tools()
    message = str(info.value)
    assert "'search'" in message
    assert "'first-pack' (first-dist 1.0)" in message
    assert "'second-pack'" in message


def test_same_tool_name_twice_in_one_plugin_is_an_error() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Pack(make(name="x"), make(name="x")), "pack")
    with pytest.raises(ToolNameConflictError, match="contributed twice by plugin 'pack'"):
        manager.hooks.tools()


class _Adapters:
    def __init__(self, *ids: str) -> None:
        self._ids = ids

    @hookimpl
    def harness_adapters(self) -> dict[str, Any]:
        return {harness_id: (lambda **_: None) for harness_id in self._ids}


def test_conflicts_are_listed_without_raising() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Pack(make(name="search"), make(name="solo")), "first-pack")
    manager.register(_Pack(make(name="search"), make(name="twice"), make(name="twice")), "second-pack")
    manager.register(_Adapters("acme"), "acme-one")
    manager.register(_Adapters("acme", "other"), "acme-two")
    conflicts = manager.hooks.conflicts()
    assert [(c.kind, c.name, c.plugins) for c in conflicts] == [
        ("tool", "search", ("first-pack", "second-pack")),
        ("tool", "twice", ("second-pack", "second-pack")),
        ("harness", "acme", ("acme-one", "acme-two")),
    ]  # plugins sorted, whatever the registration order
    assert conflicts[0].message == (
        "tool 'search' is contributed by plugins 'first-pack' and 'second-pack'; disable one with "
        "HARNESS_DISABLE_PLUGINS"
    )
    assert conflicts[1].message == "tool 'twice' is contributed 2 times by plugin 'second-pack'"
    assert conflicts[2].to_json() == {
        "kind": "harness", "name": "acme", "plugins": ["acme-one", "acme-two"],
        "message": "harness id 'acme' is contributed by plugins 'acme-one' and 'acme-two'; disable one with "
                   "HARNESS_DISABLE_PLUGINS",
    }


def test_no_conflicts_when_names_are_unique() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Pack(make(name="a")), "pack-a")
    manager.register(_Pack(make(name="b")), "pack-b")
    assert manager.hooks.conflicts() == []


def test_tool_output_is_frozen() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ToolOutput("x").content = "y"  # type: ignore[misc]
