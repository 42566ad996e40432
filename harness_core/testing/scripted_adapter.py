"""A scripted, in-process adapter: a fake *runtime* for testing the host side.

:class:`ScriptedAdapter` implements the whole adapter contract
(:mod:`harness_core.adapter`) without a model: each prompt plays the next scripted turn.
A turn is a list of steps; a step is a list of actions (or a function of the previous
step's results returning one). The runtime behaves like a real one:

* text and reasoning stream as native events, projected by the adapter's own
  ``harness_project_event`` implementation;
* built-in calls (:class:`CallBuiltin`) run for real in the workspace (the session
  sandbox's root, else ``workspace=``): ``bash`` in a subprocess, ``read`` / ``write`` /
  ``edit`` / ``glob`` on real files; with ``StartRequest.builtin_approvals`` each call first
  asks through :class:`~harness_core.adapter.BuiltinApprovalRequest` and honours the
  answer; with a native :class:`~harness_core.adapter.BuiltinFilter` an inactive built-in
  is "not offered" and the call fails like a runtime's "No such tool";
* host calls (:class:`CallHost`) become :class:`~harness_core.adapter.HostToolCall` events
  (even for tools the host did not offer, so the agent's own defences can be tested);
* the calls of a step are parallel: all requests, then
  :class:`~harness_core.adapter.AwaitingAnswers`, then the runtime waits until every
  request is answered;
* :class:`Fail` ends the turn with a runtime error, :class:`Crash` makes the event
  stream raise, :class:`Sleep` blocks (abort tests);
* ``suspend_turn()`` / ``resume_turn()`` round-trip through JSON, so a turn suspended in
  one process continues in another built with the same script; ``stop()`` / resume
  continue with the next scripted turn.

Everything the runtime receives is recorded (:attr:`ScriptedAdapter.starts`,
:attr:`~ScriptedAdapter.prompts`, :attr:`~ScriptedAdapter.tool_results`,
:attr:`~ScriptedAdapter.approvals`...) for assertions.

Example::

    from harness_core.testing import CallBuiltin, CallHost, EchoResults, Say, ScriptedAdapter

    adapter = ScriptedAdapter([
        [  # turn 1 (first prompt)
            [Say("Checking."), CallBuiltin("bash", {"command": "echo hi > out.txt"})],  # step 1
            [EchoResults("Result:")],                                                  # step 2
        ],
    ], workspace=tmp_path)
    agent = adapter.agent(tools=[...])          # an isolated plugin manager, adapter registered
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import anyio
import attrs

from harness_core.adapter import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    PendingRequest,
    PromptRequest,
    StartRequest,
    TurnEnd,
)
from harness_core.errors import HarnessCapabilityUnsupportedError, TurnStateError
from harness_core.hook_contexts import ProjectionContext
from harness_core.hookspecs import hookimpl
from harness_core.parts.models import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolResultPart,
    Usage,
    with_native_tool_name,
)
from harness_core.tools.definition import BuiltinTool, ToolCall, ToolKind, ToolResources
from harness_core.tools.output import ToolOutput, truncate_text

if TYPE_CHECKING:
    from harness_core.agent.harness_agent import HarnessAgent

__all__ = [
    "CallBuiltin",
    "CallHost",
    "ChangeFile",
    "Compact",
    "Crash",
    "EchoResults",
    "Fail",
    "Say",
    "ScriptedAdapter",
    "ScriptedResult",
    "ScriptedSession",
    "ScriptedTurn",
    "Sleep",
    "StepContext",
    "Think",
    "default_builtins",
]

# -- script actions -------------------------------------------------------------------


@attrs.frozen
class Say:
    """The model says ``text``."""

    text: str


@attrs.frozen
class Think:
    """The model reasons ``text``."""

    text: str


@attrs.frozen
class CallBuiltin:
    """The model calls a built-in tool.

    Attributes:
        tool: common name (``bash``) or native name (``Bash``) of a declared built-in, or
            an undeclared native name.
        input: the native input (``{"command": ...}``, ``{"file_path": ..., "content": ...}``).
        id: the call id (default ``call-<turn>-<step>-<n>``).
        output: a fixed result text instead of running the tool for real.
        provider_metadata: metadata the runtime attaches to the call.
    """

    tool: str
    input: Mapping[str, Any] = attrs.field(factory=dict)
    id: str | None = None
    output: str | None = None
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class CallHost:
    """The model calls a host tool (input may be a mapping or raw JSON text)."""

    tool: str
    input: Mapping[str, Any] | str = attrs.field(factory=dict)
    id: str | None = None
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class EchoResults:
    """The model says ``prefix`` followed by the results of the previous step's calls."""

    prefix: str = ""


@attrs.frozen
class Fail:
    """The runtime fails: the turn ends with ``TurnEnd(error=message)``."""

    message: str
    error_type: str = "model-error"


@attrs.frozen
class Crash:
    """The runtime crashes: the event stream raises ``RuntimeError(message)``."""

    message: str = "scripted runtime crashed"


@attrs.frozen
class Sleep:
    """The runtime blocks for ``seconds`` (use with abort)."""

    seconds: float = 3600.0


@attrs.frozen
class ChangeFile:
    """The runtime reports an opaque workspace change (projected as ``fileChange``)."""

    path: str
    kind: Literal["add", "modify", "delete"] = "modify"


@attrs.frozen
class Compact:
    """The runtime compacts its context (projected as ``compaction``)."""

    summary: str = "compacted"


Action: TypeAlias = Say | Think | CallBuiltin | CallHost | EchoResults | Fail | Crash | Sleep | ChangeFile | Compact


@attrs.frozen(kw_only=True)
class ScriptedResult:
    """One call result as the scripted model saw it.

    Attributes:
        tool_call_id / tool_name: the call.
        content: the result text the model received.
        is_error: an error result (denials included).
    """

    tool_call_id: str
    tool_name: str
    content: str
    is_error: bool


@attrs.frozen(kw_only=True)
class StepContext:
    """What a step function receives.

    Attributes:
        turn_index / step_index: 0-based positions.
        prompt: the turn's prompt.
        results: the previous step's call results, in call order.
        host_tools: names of the host tools offered for this turn.
        workspace: the workspace directory, if any.
    """

    turn_index: int
    step_index: int
    prompt: str
    results: tuple[ScriptedResult, ...]
    host_tools: tuple[str, ...]
    workspace: Path | None


Step: TypeAlias = Sequence[Action] | Callable[[StepContext], Sequence[Action]]
Turn: TypeAlias = Sequence[Step]

# -- native events (what the runtime emits; projected by the adapter) --------------------


@attrs.frozen
class NativeText:
    """Native event: assistant text."""

    text: str


@attrs.frozen
class NativeReasoning:
    """Native event: reasoning text."""

    text: str


@attrs.frozen
class NativeToolUse:
    """Native event: a built-in call (native name)."""

    call_id: str
    name: str
    input: Mapping[str, Any]
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class NativeToolResult:
    """Native event: a built-in call's result (native name)."""

    call_id: str
    name: str
    content: str
    is_error: bool


@attrs.frozen
class NativeFileChange:
    """Native event: an opaque workspace change."""

    change_id: str
    path: str
    kind: str


@attrs.frozen
class NativeCompaction:
    """Native event: the context was compacted."""

    compaction_id: str
    summary: str


@attrs.frozen
class NativeStepEnd:
    """Native event: a model step with tool calls ended."""

    usage: Usage


STEP_USAGE = Usage(input_tokens=10, output_tokens=5, total_tokens=15)
"""The usage every scripted model step reports."""


def _path_resources(native: Mapping[str, Any]) -> ToolResources:
    path = native.get("file_path") or native.get("path")
    return ToolResources(paths=(str(path),) if path else ())


def _command_resources(native: Mapping[str, Any]) -> ToolResources:
    command = native.get("command")
    return ToolResources(command=str(command) if command is not None else None)


def _glob_resources(native: Mapping[str, Any]) -> ToolResources:
    return ToolResources(paths=(str(native.get("path") or "."),))


def default_builtins() -> list[BuiltinTool]:
    """The built-ins a :class:`ScriptedAdapter` declares by default.

    ``read``/``Read``, ``write``/``Write``, ``edit``/``Edit``, ``bash``/``Bash`` (native
    names differ, like Claude Code's), ``glob``/``glob`` (same name) and ``NotebookEdit``
    (a native without a common name).
    """
    obj = {"type": "object"}
    return [
        BuiltinTool(name="read", native_name="Read", kind=ToolKind.READ_ONLY, description="Read a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="write", native_name="Write", kind=ToolKind.EDIT, description="Write a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"},
                                                        "content": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="edit", native_name="Edit", kind=ToolKind.EDIT, description="Edit a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"},
                                                        "old_string": {"type": "string"},
                                                        "new_string": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH, description="Run a shell command.",
                    input_schema={**obj, "properties": {"command": {"type": "string"}}},
                    resources=_command_resources),
        BuiltinTool(name="glob", native_name="glob", kind=ToolKind.READ_ONLY, description="Find files.",
                    input_schema={**obj, "properties": {"pattern": {"type": "string"}}},
                    resources=_glob_resources),
        BuiltinTool(name="NotebookEdit", native_name="NotebookEdit", kind=ToolKind.EDIT,
                    description="Edit a notebook cell."),
    ]


# -- the adapter ----------------------------------------------------------------------


class ScriptedAdapter:
    """An in-process adapter playing a script; also its own plugin (register it).

    Args:
        script: one entry per prompt (see the module docs).
        harness_id: its harness id (default ``scripted``).
        supports_builtin_approvals: built-in calls can be paused for a decision.
        supports_builtin_filtering: the runtime can be told not to offer built-ins.
        supports_suspend: ``suspend_turn`` / ``resume_turn`` work (else they raise
            :class:`~harness_core.errors.HarnessCapabilityUnsupportedError`).
        supports_compaction: ``compact()`` works (else it raises likewise).
        builtins: the declared built-ins (default :func:`default_builtins`).
        workspace: where built-ins run when the session has no sandbox.
        host_tool_prefix: the runtime's prefix for host tool names (e.g. ``mcp__host__``);
            host calls then carry it as ``native_tool_name``.
        bash_timeout: seconds before a built-in ``bash`` call is killed.
    """

    def __init__(
        self,
        script: Sequence[Turn],
        *,
        harness_id: str = "scripted",
        supports_builtin_approvals: bool = True,
        supports_builtin_filtering: bool = False,
        supports_suspend: bool = True,
        supports_compaction: bool = True,
        builtins: Sequence[BuiltinTool] | None = None,
        workspace: str | os.PathLike[str] | None = None,
        host_tool_prefix: str | None = None,
        bash_timeout: float = 60.0,
    ) -> None:
        self.script: list[Turn] = list(script)
        self.harness_id = harness_id
        self.supports_builtin_approvals = supports_builtin_approvals
        self.supports_builtin_filtering = supports_builtin_filtering
        self.supports_suspend = supports_suspend
        self.supports_compaction = supports_compaction
        self.declared_builtins: list[BuiltinTool] = list(builtins) if builtins is not None else default_builtins()
        self.workspace = Path(workspace) if workspace is not None else None
        self.host_tool_prefix = host_tool_prefix
        self.bash_timeout = bash_timeout
        self.starts: list[StartRequest] = []
        """Every :class:`~harness_core.adapter.StartRequest` received."""
        self.prompts: list[PromptRequest] = []
        """Every :class:`~harness_core.adapter.PromptRequest` received."""
        self.tool_results: dict[str, list[ToolOutput]] = {}
        """Host tool results received, by call id (a list, to catch double submissions)."""
        self.approvals: dict[str, list[tuple[bool, str | None]]] = {}
        """Built-in approval answers received, by approval id."""
        self.executed: list[str] = []
        """Call ids of built-in calls the runtime actually ran."""
        self.aborted: list[int] = []
        """Turn indexes that were aborted."""
        self.live_processes: set[int] = set()
        """Process ids of built-in commands still running."""
        self.sessions: list[ScriptedSession] = []

    # -- plugin side ---------------------------------------------------------------------

    @hookimpl
    def harness_adapters(self) -> Mapping[str, Callable[..., ScriptedAdapter]]:
        """This adapter, under its harness id."""
        return {self.harness_id: lambda **_: self}

    @hookimpl
    def harness_declare_builtins(self, harness_id: str) -> Sequence[BuiltinTool] | None:
        """The declared built-ins, for this adapter's harness id."""
        return list(self.declared_builtins) if harness_id == self.harness_id else None

    @hookimpl
    def harness_project_event(self, event: object, context: ProjectionContext) -> Sequence[Part] | None:
        """Project the scripted runtime's native events."""
        return project_scripted_event(event, context)

    def agent(self, **kwargs: Any) -> HarnessAgent:
        """A :class:`~harness_core.agent.harness_agent.HarnessAgent` on an isolated plugin manager.

        Installed plugins are not discovered (only the core defaults, this adapter and
        ``plugins=``), so tests see exactly what they configure.
        """
        from harness_core.agent.harness_agent import HarnessAgent
        from harness_core.plugins.manager import create_plugin_manager

        manager = kwargs.pop("plugin_manager", None) or create_plugin_manager(load_entry_points=False)
        manager.register(self, name=f"scripted-adapter-{self.harness_id}")
        return HarnessAgent(harness=self, plugin_manager=manager, **kwargs)

    # -- adapter side --------------------------------------------------------------------

    async def start(self, request: StartRequest) -> ScriptedSession:
        """Open a session (resumed or continued from state when given)."""
        self.starts.append(request)
        next_turn = 0
        if request.resume_from is not None:
            next_turn = int(request.resume_from.get("next_turn", 0))
        session = ScriptedSession(self, request, next_turn)
        if request.continue_from is not None:
            if not self.supports_suspend:
                raise HarnessCapabilityUnsupportedError(self.harness_id, "continuing a suspended turn")
            session.next_turn = int(request.continue_from["turn"]["turn_index"]) + 1
        self.sessions.append(session)
        return session

    def workspace_for(self, request: StartRequest) -> Path | None:
        """The directory built-ins run in."""
        if request.sandbox is not None:
            return Path(request.sandbox.root)
        return self.workspace


def _text_parts(kind: Literal["text", "reasoning"], text: str, context: ProjectionContext) -> list[Part]:
    block = context.new_id(kind)
    if kind == "text":
        return [TextStartPart(id=block), TextDeltaPart(id=block, text=text), TextEndPart(id=block)]
    return [ReasoningStartPart(id=block), ReasoningDeltaPart(id=block, text=text), ReasoningEndPart(id=block)]


def project_scripted_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Parts for one native event of the scripted runtime (``None`` for other events)."""
    if isinstance(event, NativeText):
        return _text_parts("text", event.text, context)
    if isinstance(event, NativeReasoning):
        return _text_parts("reasoning", event.text, context)
    if isinstance(event, NativeToolUse | NativeToolResult):
        builtin = context.builtin_by_native(event.name)
        name = builtin.name if builtin is not None else event.name
        if isinstance(event, NativeToolUse):
            return [ToolCallPart(
                tool_call_id=event.call_id, tool_name=name, input=dict(event.input), provider_executed=True,
                dynamic=None if builtin is not None else True,
                provider_metadata=with_native_tool_name(event.provider_metadata, context.harness_id, name, event.name),
            )]
        if event.is_error:
            return [ToolErrorPart(tool_call_id=event.call_id, tool_name=name, error=event.content,
                                  provider_executed=True)]
        return [ToolResultPart(tool_call_id=event.call_id, tool_name=name, output=event.content,
                               provider_executed=True)]
    if isinstance(event, NativeFileChange):
        change = {"path": event.path, "kind": event.kind}
        return [
            ToolCallPart(tool_call_id=event.change_id, tool_name=FILE_CHANGE_TOOL, input=change,
                         provider_executed=True, dynamic=True),
            ToolResultPart(tool_call_id=event.change_id, tool_name=FILE_CHANGE_TOOL, input=change, output=change,
                           provider_executed=True, dynamic=True),
        ]
    if isinstance(event, NativeCompaction):
        return [
            ToolCallPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input={},
                         provider_executed=True, dynamic=True),
            ToolResultPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input={},
                           output={"summary": event.summary}, provider_executed=True, dynamic=True),
        ]
    if isinstance(event, NativeStepEnd):
        return [FinishStepPart(finish_reason="tool-calls", usage=event.usage)]
    return None


class ScriptedSession:
    """A session of the scripted runtime."""

    def __init__(self, adapter: ScriptedAdapter, request: StartRequest, next_turn: int) -> None:
        self.adapter = adapter
        self.request = request
        self.next_turn = next_turn
        self.current: ScriptedTurn | None = None
        self.destroyed = False
        self.compactions = 0

    def _check(self) -> None:
        if self.destroyed:
            raise TurnStateError("scripted session was destroyed")

    async def prompt(self, request: PromptRequest) -> ScriptedTurn:
        """Start the next scripted turn."""
        self._check()
        self.adapter.prompts.append(request)
        turn = ScriptedTurn(self, turn_index=self.next_turn, prompt=request.prompt,
                            host_tools=tuple(spec.name for spec in request.host_tools))
        self.next_turn += 1
        self.current = turn
        return turn

    async def resume_turn(self) -> ScriptedTurn:
        """The turn restored from ``StartRequest.continue_from``."""
        self._check()
        state = self.request.continue_from
        if state is None:
            raise TurnStateError("scripted session has no continue_from state to resume")
        turn = ScriptedTurn.restore(self, state["turn"])
        self.current = turn
        return turn

    async def suspend_turn(self) -> dict[str, Any]:
        """JSON state of the current turn (it waits for answers)."""
        self._check()
        if not self.adapter.supports_suspend:
            raise HarnessCapabilityUnsupportedError(self.adapter.harness_id, "suspending a turn")
        if self.current is None:
            raise TurnStateError("scripted session has no turn to suspend")
        state = {"turn": self.current.snapshot()}
        self.current.detached = True
        self.current = None
        return state

    async def stop(self) -> dict[str, Any]:
        """State for ``resume_from``: the next turn to play."""
        self._check()
        return {"next_turn": self.next_turn}

    async def destroy(self) -> None:
        """Kill running commands. Idempotent."""
        if self.current is not None:
            await self.current.abort()
        self.destroyed = True

    async def compact(self) -> ScriptedTurn:
        """A turn that only compacts."""
        self._check()
        if not self.adapter.supports_compaction:
            raise HarnessCapabilityUnsupportedError(self.adapter.harness_id, "compaction")
        self.compactions += 1
        turn = ScriptedTurn(self, turn_index=-1, prompt="", host_tools=(), compaction=True)
        return turn


@attrs.define(kw_only=True)
class _Call:
    kind: Literal["builtin", "host"]
    id: str
    tool: str
    native: str
    input: Any
    approval_id: str | None = None
    state: Literal["asked", "approved", "denied", "refused", "waiting", "answered", "run"] = "run"
    reason: str | None = None
    content: str | None = None
    is_error: bool = False
    fixed_output: str | None = None


class ScriptedTurn:
    """One turn of the scripted runtime (the :class:`~harness_core.adapter.AdapterTurn`)."""

    def __init__(self, session: ScriptedSession, *, turn_index: int, prompt: str, host_tools: tuple[str, ...],
                 compaction: bool = False) -> None:
        self.session = session
        self.adapter = session.adapter
        self.turn_index = turn_index
        self.prompt = prompt
        self.host_tools = host_tools
        self.compaction = compaction
        self.step_index = 0
        self.phase: Literal["start", "waiting"] = "start"
        self.calls: list[_Call] = []
        self.previous: list[ScriptedResult] = []
        self.usage = Usage()
        self.detached = False
        self.aborted = False
        self._answered: anyio.Event | None = None
        self._events: AsyncGenerator[object, None] | None = None
        self._pids: set[int] = set()

    # -- state -------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON state of this turn."""
        return {
            "turn_index": self.turn_index,
            "prompt": self.prompt,
            "host_tools": list(self.host_tools),
            "step_index": self.step_index,
            "phase": self.phase,
            "calls": [attrs.asdict(call) for call in self.calls],
            "previous": [attrs.asdict(result) for result in self.previous],
            "usage": self.usage.model_dump(mode="json"),
        }

    @classmethod
    def restore(cls, session: ScriptedSession, state: Mapping[str, Any]) -> ScriptedTurn:
        """Rebuild a turn from :meth:`snapshot` data."""
        turn = cls(session, turn_index=int(state["turn_index"]), prompt=str(state["prompt"]),
                   host_tools=tuple(state.get("host_tools", ())))
        turn.step_index = int(state["step_index"])
        turn.phase = state["phase"]
        turn.calls = [_Call(**call) for call in state["calls"]]
        turn.previous = [ScriptedResult(**result) for result in state["previous"]]
        turn.usage = Usage.model_validate(state["usage"])
        return turn

    # -- answers -----------------------------------------------------------------------

    def pending_requests(self) -> list[PendingRequest]:
        """What this runtime waits on (the :class:`~harness_core.adapter.PendingRequestsTurn`
        capability): built-in calls asked for approval and host calls awaiting a result."""
        requests: list[PendingRequest] = []
        for call in self.calls:
            if call.state == "asked" and call.approval_id is not None:
                requests.append(PendingRequest(kind="approval", approval_id=call.approval_id, call=ToolCall(
                    tool_call_id=call.id, tool_name=call.native, input=call.input, provider_executed=True)))
            elif call.kind == "host" and call.state == "waiting":
                requests.append(PendingRequest(kind="tool-result", call=ToolCall(
                    tool_call_id=call.id, tool_name=call.tool, input=call.input)))
        return requests

    def _call_by(self, key: str, value: str) -> _Call:
        for call in self.calls:
            if getattr(call, key) == value:
                return call
        raise KeyError(f"scripted turn {self.turn_index}: no pending call with {key} {value!r}")

    def _check_answered(self) -> None:
        if self._answered is not None and all(c.state not in ("asked", "waiting") for c in self.calls):
            self._answered.set()

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a host call (``KeyError`` for an unknown or already answered id)."""
        self.adapter.tool_results.setdefault(tool_call_id, []).append(output)
        call = self._call_by("id", tool_call_id)
        if call.kind != "host" or call.state != "waiting":
            raise KeyError(f"scripted turn {self.turn_index}: call {tool_call_id!r} is not waiting for a result")
        call.state = "answered"
        call.content, call.is_error = output.content, output.is_error
        self._check_answered()

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a built-in approval request (``KeyError`` for an unknown id)."""
        self.adapter.approvals.setdefault(approval_id, []).append((approved, reason))
        call = self._call_by("approval_id", approval_id)
        if call.state != "asked":
            raise KeyError(f"scripted turn {self.turn_index}: approval {approval_id!r} was already answered")
        call.state = "approved" if approved else "denied"
        call.reason = reason
        self._check_answered()

    async def abort(self) -> None:
        """Stop now: kill running commands; the session takes the next prompt."""
        if not self.aborted:
            self.aborted = True
            self.adapter.aborted.append(self.turn_index)
        for pid in list(self._pids):
            _kill_group(pid)
        if self._events is not None:
            await self._events.aclose()

    # -- events ------------------------------------------------------------------------

    def events(self) -> AsyncGenerator[object, None]:
        """The turn's events (created once)."""
        if self._events is None:
            self._events = self._run()
        return self._events

    def _steps(self) -> Sequence[Step] | None:
        if 0 <= self.turn_index < len(self.adapter.script):
            return self.adapter.script[self.turn_index]
        return None

    async def _run(self) -> AsyncGenerator[object, None]:
        self._answered = anyio.Event()
        if self.compaction:
            yield NativeCompaction(compaction_id=f"compaction-{self.session.compactions}", summary="compacted")
            yield TurnEnd(finish_reason="stop")
            return
        steps = self._steps()
        if steps is None:
            yield TurnEnd(finish_reason="error", error_type="script-exhausted",
                          error=f"scripted adapter: the script has no turn {self.turn_index + 1} "
                                f"(it has {len(self.adapter.script)})")
            return
        while self.step_index < len(steps):
            if self.phase == "start":
                context = StepContext(turn_index=self.turn_index, step_index=self.step_index, prompt=self.prompt,
                                      results=tuple(self.previous), host_tools=self.host_tools,
                                      workspace=self.adapter.workspace_for(self.session.request))
                step = steps[self.step_index]
                actions = step(context) if callable(step) else step
                self.calls = []
                for index, action in enumerate(actions):
                    async for event in self._act(action, index):
                        yield event
                        if isinstance(event, TurnEnd):
                            return
                if any(c.state in ("asked", "waiting") for c in self.calls):
                    self.phase = "waiting"
                    yield AwaitingAnswers()
            if self.phase == "waiting":
                self._check_answered()
                await self._answered.wait()
                self._answered = anyio.Event()
            results: list[ScriptedResult] = []
            for call in self.calls:
                async for event in self._finish_call(call):
                    yield event
                assert call.content is not None
                results.append(ScriptedResult(tool_call_id=call.id, tool_name=call.tool, content=call.content,
                                              is_error=call.is_error))
            self.previous = results
            self.phase = "start"
            self.step_index += 1
            self.usage = self.usage + STEP_USAGE
            if self.calls and self.step_index < len(steps):
                yield NativeStepEnd(usage=STEP_USAGE)
        yield TurnEnd(finish_reason="stop", usage=self.usage)

    def _builtin(self, name: str) -> BuiltinTool | None:
        for tool in self.adapter.declared_builtins:
            if name in (tool.name, tool.native_name):
                return tool
        return None

    async def _act(self, action: Action, index: int) -> AsyncGenerator[object, None]:
        request = self.session.request
        call_id = getattr(action, "id", None) or f"call-{self.turn_index}-{self.step_index}-{index}"
        if isinstance(action, Say):
            yield NativeText(action.text)
        elif isinstance(action, Think):
            yield NativeReasoning(action.text)
        elif isinstance(action, EchoResults):
            body = " | ".join(f"{r.tool_name}: {r.content}" for r in self.previous)
            yield NativeText(f"{action.prefix} {body}".strip())
        elif isinstance(action, Fail):
            yield TurnEnd(finish_reason="error", error=action.message, error_type=action.error_type, usage=self.usage)
        elif isinstance(action, Crash):
            raise RuntimeError(action.message)
        elif isinstance(action, Sleep):
            await anyio.sleep(action.seconds)
        elif isinstance(action, ChangeFile):
            yield NativeFileChange(change_id=f"{call_id}-change", path=action.path, kind=action.kind)
        elif isinstance(action, Compact):
            yield NativeCompaction(compaction_id=f"{call_id}-compaction", summary=action.summary)
        elif isinstance(action, CallBuiltin):
            builtin = self._builtin(action.tool)
            name = builtin.name if builtin is not None else action.tool
            native = builtin.native_name if builtin is not None else action.tool
            call = _Call(kind="builtin", id=call_id, tool=name, native=native, input=dict(action.input),
                         fixed_output=action.output)
            self.calls.append(call)
            metadata = {k: dict(v) for k, v in action.provider_metadata.items()}
            flt = request.builtin_filter
            if not request.builtin_approvals or (flt is not None and not flt.allows(name)):
                # Announced by the adapter; a call sent as BuiltinApprovalRequest is announced by the core.
                yield NativeToolUse(call_id=call_id, name=native, input=dict(action.input), provider_metadata=metadata)
            if flt is not None and not flt.allows(name):
                call.state = "refused"
                call.content, call.is_error = f"No such tool available: {native}", True
            elif request.builtin_approvals:
                call.state = "asked"
                call.approval_id = f"approval-{call_id}"
                yield BuiltinApprovalRequest(call.approval_id, ToolCall(
                    tool_call_id=call_id, tool_name=name, input=dict(action.input), provider_executed=True,
                    native_tool_name=native, dynamic=builtin is None, provider_metadata=metadata,
                ))
        elif isinstance(action, CallHost):
            host_native = f"{self.adapter.host_tool_prefix}{action.tool}" if self.adapter.host_tool_prefix else None
            call = _Call(kind="host", id=call_id, tool=action.tool, native=host_native or action.tool,
                         input=action.input if isinstance(action.input, str) else dict(action.input), state="waiting")
            self.calls.append(call)
            yield HostToolCall(ToolCall(tool_call_id=call_id, tool_name=action.tool, input=call.input,
                                        native_tool_name=host_native,
                                        provider_metadata={k: dict(v) for k, v in action.provider_metadata.items()}))
        else:  # pragma: no cover - guarded by the Action type
            raise TypeError(f"scripted adapter: unknown action {action!r}")

    async def _finish_call(self, call: _Call) -> AsyncGenerator[object, None]:
        if call.kind == "host":
            return
        if call.state == "denied":
            # The model sees the denial; the core already emitted tool-output-denied for it.
            call.content, call.is_error = f"Permission denied: {call.reason or 'the host denied this call'}", True
            call.state = "answered"
            return
        if call.state in ("run", "approved"):
            call.content, call.is_error = await self._execute(call)
            self.adapter.executed.append(call.id)
        call.state = "answered" if call.state != "refused" else call.state
        assert call.content is not None
        yield NativeToolResult(call_id=call.id, name=call.native, content=call.content, is_error=call.is_error)

    async def _execute(self, call: _Call) -> tuple[str, bool]:
        if call.fixed_output is not None:
            return call.fixed_output, False
        workspace = self.adapter.workspace_for(self.session.request)
        if workspace is None:
            return f"{call.native}: the scripted runtime has no workspace", True
        native: Mapping[str, Any] = call.input
        try:
            if call.tool == "bash":
                return await self._bash(str(native.get("command", "")), workspace)
            if call.tool in ("read", "write", "edit"):
                path = _inside(workspace, str(native.get("file_path", "")))
                if call.tool == "read":
                    return path.read_text(encoding="utf-8"), False
                if call.tool == "write":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(str(native.get("content", "")), encoding="utf-8")
                    return f"Wrote {path.relative_to(workspace)}", False
                text = path.read_text(encoding="utf-8")
                old, new = str(native.get("old_string", "")), str(native.get("new_string", ""))
                if not old or text.count(old) != 1:
                    return f"old_string must occur exactly once in {path.relative_to(workspace)}", True
                path.write_text(text.replace(old, new), encoding="utf-8")
                return f"Edited {path.relative_to(workspace)}", False
            if call.tool == "glob":
                pattern = str(native.get("pattern", "*"))
                return "\n".join(sorted(str(p.relative_to(workspace)) for p in workspace.glob(pattern))), False
        except (OSError, PermissionError, UnicodeDecodeError) as exc:
            return f"{call.native} failed: {type(exc).__name__}: {exc}", True
        return f"{call.native} done", False

    async def _bash(self, command: str, workspace: Path) -> tuple[str, bool]:
        with anyio.CancelScope(shield=True):  # a cancelled spawn must not leave an untracked process
            process = await anyio.open_process(["bash", "-c", command], cwd=workspace, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, start_new_session=True)
        self._pids.add(process.pid)
        self.adapter.live_processes.add(process.pid)
        chunks: list[bytes] = []
        try:
            with anyio.fail_after(self.adapter.bash_timeout):
                assert process.stdout is not None
                async for chunk in process.stdout:
                    chunks.append(chunk)
                code = await process.wait()
        except TimeoutError:
            _kill_group(process.pid)
            return f"command timed out after {self.adapter.bash_timeout} s", True
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    _kill_group(process.pid)
                    await process.wait()
                await process.aclose()
            self._pids.discard(process.pid)
            self.adapter.live_processes.discard(process.pid)
        output = truncate_text(b"".join(chunks).decode("utf-8", errors="replace"))
        if code != 0:
            return f"exit code {code}\n{output}", True
        return output, False


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _inside(workspace: Path, path: str) -> Path:
    root = workspace.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(f"{path!r} is outside the workspace")
    return target
