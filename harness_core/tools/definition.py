"""Tool definitions: host tools (:func:`define_harness_tool`) and runtime built-ins.

* :class:`HarnessTool` is a tool the host executes (or, without ``execute``, a client-side
  tool whose result the host supplies later). Define one with :func:`define_harness_tool`.
* :class:`BuiltinTool` is a tool the harness runtime executes natively (Claude Code's
  ``Bash``, the built-in harness's ``read``...). Adapters declare them through the
  ``harness_declare_builtins`` hook; the host never executes them (``provider_executed``).
* :class:`ToolCall` is one call the runtime made, as the host sees it.

The option names and rules follow Outpost's ``defineHarnessTool`` and the AI SDK's
harness tools, written the Python way (snake_case, pydantic models for schemas).
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeAlias

import attrs

from harness_core.errors import ToolDefinitionError
from harness_core.suggestions import describe_unknown_names
from harness_core.tools.frozen import FrozenJsonObject
from harness_core.tools.output import ToolOutput
from harness_core.tools.schema import ToolInputSchema, compile_input_schema, is_model_class

if TYPE_CHECKING:
    import pydantic

    from harness_core.sandbox import SandboxView

__all__ = [
    "BuiltinTool",
    "HarnessTool",
    "ToolCall",
    "ToolContext",
    "ToolKind",
    "ToolResources",
    "define_harness_tool",
]

TOOL_NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ToolKind(enum.StrEnum):
    """What a built-in tool does, which decides its treatment under a permission mode.

    ``read-only`` calls are allowed by every mode; ``edit`` calls need ``allow-edits`` or
    ``allow-all``; ``bash`` (shell) calls need ``allow-all``.
    """

    READ_ONLY = "read-only"
    EDIT = "edit"
    BASH = "bash"


def _str_tuple(paths: Iterable[str]) -> tuple[str, ...]:
    # A typed converter (``converter=tuple`` leaves mypy with an unsolved type variable).
    if isinstance(paths, str):
        return (paths,)
    return tuple(paths)


@attrs.frozen
class ToolResources:
    """What a validated tool input touches, so permission rules can match it.

    Attributes:
        paths: file-system paths as the call spells them (relative to the workspace root
            unless absolute); a search tool lists the paths it searches. Any iterable of
            strings is stored as a tuple; a single string counts as one path.
        command: the shell command line, for shell tools.
    """

    paths: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    command: str | None = None


@attrs.frozen
class ToolContext:
    """What a host tool's ``execute(input, context)`` receives besides its input.

    Attributes:
        tool_call_id: the runtime's id for this call.
        tool_name: the host tool name.
        session_id: the harness session the call belongs to.
        harness_id: the adapter's harness id (``"builtin"``, ``"claude-code"``...).
        sandbox: a restricted view of the session sandbox (read, write, run commands), or
            ``None`` when the session has no sandbox.
        context: the tool's validated context (see ``context_schema``), or ``None``.
        metadata: free-form values the host attaches (never sent to the model).
    """

    tool_call_id: str
    tool_name: str
    session_id: str = ""
    harness_id: str = ""
    sandbox: SandboxView | None = None
    context: Any = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


ToolResult: TypeAlias = "str | ToolOutput | Mapping[str, Any] | Any"
ExecuteFn: TypeAlias = Callable[[Any, ToolContext], Any]
"""``execute(input, context)``: sync or async; returns text, a :class:`ToolOutput`, a
``{"content", "isError"}`` mapping, or any JSON value; a (async) generator yields
preliminary results and its last value is the final result."""
ResourcesFn: TypeAlias = Callable[[Any], ToolResources]
ToModelOutputFn: TypeAlias = Callable[[Any], "str | ToolOutput | Awaitable[str | ToolOutput]"]


_optional_callable = attrs.validators.optional(attrs.validators.is_callable())
"""A tool function field: ``None`` or callable (``attrs.evolve`` runs it too)."""


@attrs.frozen(kw_only=True)
class HarnessTool:
    """A host tool, frozen. Build it with :func:`define_harness_tool`, not directly.

    Attributes:
        name: unique tool name shown to the model.
        description: what the model reads to decide when to call the tool.
        input_schema: the compiled input schema; ``input_schema.json_schema`` (deep-frozen)
            is sent to runtimes.
        read_only: the tool has no side effects (read-only calls may run in parallel).
        resources: maps validated input to the :class:`ToolResources` it touches.
        execute: runs the call; ``None`` makes a client-side tool.
        context_schema: a pydantic model the tool's context must satisfy, or ``None``.
        to_model_output: turns the execute result into what the model sees.
    """

    name: str
    description: str
    input_schema: ToolInputSchema = attrs.field(eq=False, repr=False)
    read_only: bool = False
    resources: ResourcesFn | None = attrs.field(default=None, eq=False, repr=False, validator=_optional_callable)
    execute: ExecuteFn | None = attrs.field(default=None, eq=False, repr=False, validator=_optional_callable)
    context_schema: type[pydantic.BaseModel] | None = attrs.field(default=None, repr=False)
    to_model_output: ToModelOutputFn | None = attrs.field(default=None, eq=False, repr=False,
                                                          validator=_optional_callable)

    provider_executed: ClassVar[bool] = False

    @property
    def json_schema(self) -> FrozenJsonObject:
        """The input schema as JSON Schema: what runtimes receive and what :meth:`validate`
        enforces, deep-frozen (mutating it raises ``TypeError``; ``.to_json()`` copies)."""
        return self.input_schema.json_schema

    @property
    def client_side(self) -> bool:
        """True when the tool has no ``execute``: the host supplies its result later."""
        return self.execute is None

    def validate(self, arguments: object) -> Any:
        """Validate call arguments against the input schema.

        Args:
            arguments: a mapping, or a JSON string (decoded once).

        Returns:
            The validated input: a ``dict`` for JSON Schemas, a model instance for pydantic
            models.

        Raises:
            ToolInputError: listing every problem with its JSON path.
        """
        return self.input_schema.validate(self.name, arguments)

    def resources_for(self, validated_input: Any) -> ToolResources | None:
        """The resources a validated input touches, or ``None`` without a ``resources`` function."""
        return None if self.resources is None else self.resources(validated_input)


_KNOWN_OPTIONS: Final[frozenset[str]] = frozenset(
    {
        "name",
        "description",
        "input",
        "read_only",
        "resources",
        "execute",
        "context_schema",
        "to_model_output",
    }
)


_CALLABLE_OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "resources": ("input",),
    "execute": ("input", "context"),
    "to_model_output": ("result",),
}
"""Each callable option and the positional arguments it is called with."""


def _check_arity(tool: str, option: str, function: Callable[..., Any], arguments: tuple[str, ...]) -> None:
    """Refuse a callable that cannot be called with ``len(arguments)`` positional arguments."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # some builtins have no signature: nothing to check
        return
    try:
        signature.bind(*arguments)
    except TypeError as exc:
        expected = ", ".join(arguments)
        count = f"{len(arguments)} positional argument{'s' if len(arguments) > 1 else ''}"
        raise ToolDefinitionError(
            f"tool {tool!r}: {option} is called as {option}({expected}), so it must accept {count}, "
            f"but its signature is {signature} ({exc})"
        ) from None


def define_harness_tool(**options: Any) -> HarnessTool:
    """Define a host tool, checking every option now rather than at call time.

    Keyword Args:
        name (str): 1 to 64 letters, digits, ``_`` or ``-``.
        description (str): non-empty after stripping whitespace.
        input (dict | type[pydantic.BaseModel]): a hand-written JSON Schema object, or a
            pydantic model class. A hand-written schema is restricted to
            :data:`harness_core.tools.schema.SUPPORTED_KEYWORDS` (checked recursively), its
            bounds must be consistent (``minimum`` <= ``maximum``, ``minLength`` <=
            ``maxLength``, ``minItems`` <= ``maxItems``) and, where a node has
            ``properties``, every ``required`` name must be one of them. A pydantic model
            is validated by pydantic in the host, so the subset does not apply: runtimes
            get its export with every ``$ref`` inlined and ``$defs`` (and
            ``discriminator``) dropped; it may contain ``anyOf``, ``oneOf``, ``pattern``,
            ``format``, ``default``, ``prefixItems``, ``exclusiveMinimum`` /
            ``exclusiveMaximum`` and schema-valued ``additionalProperties``. Recursive
            models are refused (they cannot be inlined).
        read_only (bool): default ``False``.
        resources (Callable[[input], ToolResources] | None): what a call touches, for
            permission rules; tools without it match rules by name only. Called with one
            positional argument.
        execute (Callable[[input, ToolContext], result] | None): called with two
            positional arguments; omit it for a client-side tool. ``async def`` functions
            (and async generators) run on the event loop; plain ``def`` functions (and
            each step of a generator) run in a worker thread, so blocking code does not
            stall other calls. A timeout or abort abandons a sync call: its thread cannot
            be killed and finishes in the background. Sandbox methods on the context are
            coroutines: a tool using them should be ``async`` (or call them with
            ``anyio.from_thread.run``).
        context_schema (type[pydantic.BaseModel] | None): the context this tool needs from
            ``tools_context``.
        to_model_output (Callable[[result], str | ToolOutput] | None): what the model sees;
            one positional argument; sync ones run in a worker thread too.

    Returns:
        A frozen :class:`HarnessTool`.

    Raises:
        ToolDefinitionError: an unknown option, or an option that breaks its rule (a
            callable whose signature cannot take its positional arguments, a schema
            keyword outside the subset...); the message names the tool, the option and
            the bad value or its location.
    """
    unknown = sorted(set(options) - _KNOWN_OPTIONS)
    if unknown:
        owner = f"tool {options['name']!r}" if isinstance(options.get("name"), str) else "define_harness_tool"
        raise ToolDefinitionError(describe_unknown_names(owner, "option", unknown, _KNOWN_OPTIONS))
    for required in ("name", "description", "input"):
        if required not in options:
            raise ToolDefinitionError(f"define_harness_tool: missing required option {required!r}")
    name = options["name"]
    if not isinstance(name, str) or TOOL_NAME_PATTERN.fullmatch(name) is None:
        raise ToolDefinitionError(
            f"tool name must be 1 to 64 characters of letters, digits, '_' or '-', got {name!r}"
        )
    description = options["description"]
    if not isinstance(description, str) or not description.strip():
        raise ToolDefinitionError(f"tool {name!r}: description must be a non-empty string, got {description!r}")
    read_only = options.get("read_only", False)
    if not isinstance(read_only, bool):
        raise ToolDefinitionError(f"tool {name!r}: read_only must be a bool, got {read_only!r}")
    for option, arguments in _CALLABLE_OPTIONS.items():
        value = options.get(option)
        if value is None:
            continue
        if not callable(value):
            raise ToolDefinitionError(f"tool {name!r}: {option} must be callable, got {type(value).__name__}")
        _check_arity(name, option, value, arguments)
    context_schema = options.get("context_schema")
    if context_schema is not None and not is_model_class(context_schema):
        raise ToolDefinitionError(
            f"tool {name!r}: context_schema must be a pydantic model class, got {context_schema!r}"
        )
    return HarnessTool(
        name=name,
        description=description,
        input_schema=compile_input_schema(name, options["input"]),
        read_only=read_only,
        resources=options.get("resources"),
        execute=options.get("execute"),
        context_schema=context_schema,
        to_model_output=options.get("to_model_output"),
    )


@attrs.frozen(kw_only=True)
class BuiltinTool:
    """A tool the harness runtime executes itself, declared by its adapter.

    Attributes:
        name: the common cross-harness name (``read``, ``write``, ``edit``, ``bash``,
            ``grep``, ``glob``, ``webSearch``) or, for natives without one, the native name.
        native_name: the runtime's own name (``Bash`` for Claude Code); equal to ``name``
            when the runtime uses the common name.
        kind: read-only, edit or bash; decides the permission-mode treatment.
        description: a short description for listings.
        input_schema: the runtime's input schema, informational (the runtime validates);
            stored deep-frozen (a :class:`~harness_core.tools.frozen.FrozenJsonObject`).
        resources: extracts :class:`ToolResources` from the runtime's native input.
    """

    name: str
    native_name: str
    kind: ToolKind
    description: str = ""
    input_schema: FrozenJsonObject = attrs.field(
        factory=lambda: FrozenJsonObject({"type": "object", "properties": {}}), converter=FrozenJsonObject
    )
    resources: Callable[[Mapping[str, Any]], ToolResources] | None = attrs.field(
        default=None, eq=False, repr=False
    )

    provider_executed: ClassVar[bool] = True

    def __attrs_post_init__(self) -> None:
        if TOOL_NAME_PATTERN.fullmatch(self.name) is None:
            raise ToolDefinitionError(f"built-in tool name must match {TOOL_NAME_PATTERN.pattern}, got {self.name!r}")
        if not self.native_name:
            raise ToolDefinitionError(f"built-in tool {self.name!r}: native_name must be non-empty")
        if not isinstance(self.kind, ToolKind):
            raise ToolDefinitionError(f"built-in tool {self.name!r}: kind must be a ToolKind, got {self.kind!r}")

    @property
    def read_only(self) -> bool:
        """True for read-only built-ins."""
        return self.kind is ToolKind.READ_ONLY

    def resources_for(self, native_input: Mapping[str, Any]) -> ToolResources | None:
        """The resources a native input touches, or ``None`` without an extractor."""
        return None if self.resources is None else self.resources(native_input)


@attrs.frozen(kw_only=True)
class ToolCall:
    """One tool call made by the runtime, as the host sees it.

    Attributes:
        tool_call_id: the runtime's call id.
        tool_name: the harness-facing name: a common built-in name, a native name, or a
            host tool name.
        input: the call's input (a mapping as the runtime sent it; validated input for
            host tools once validated).
        provider_executed: True for built-in calls the runtime executes.
        dynamic: True for tools outside the typed tool set (undeclared natives, file
            changes, compaction).
        native_tool_name: the runtime's name when it differs from ``tool_name``.
        provider_metadata: per-harness metadata, ``{harness_id: {...}}``.
    """

    tool_call_id: str
    tool_name: str
    input: Any = attrs.field(factory=dict)
    provider_executed: bool = False
    dynamic: bool = False
    native_tool_name: str | None = None
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
