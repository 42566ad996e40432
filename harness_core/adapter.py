"""The adapter contract: what every runtime plugin implements.

An adapter plugin contributes an :class:`AdapterFactory` through the ``harness_adapters``
hook and declares its runtime's built-in tools through ``harness_declare_builtins``.
The host side (:class:`~harness_core.agent.harness_agent.HarnessAgent`) drives it in three layers,
modelled on the AI SDK's HarnessV1 contract:

* :class:`Adapter` - one configured runtime; ``start()`` opens an :class:`AdapterSession`.
* :class:`AdapterSession` - live runtime state for one harness session: prompt a turn,
  resume a restored in-flight turn, suspend it, stop (detach), destroy, compact.
* :class:`AdapterTurn` - one running turn: an async stream of events, plus the
  ``submit_*`` methods the host uses to answer the runtime.

The event stream of a turn carries three kinds of items:

1. **native events** (any object): turned into stream parts by ``harness_project_event``
   (the adapter's own implementation, or the core default);
2. **stream parts** (:class:`~harness_core.parts.models.Part`): passed through unchanged;
3. **control events**, defined here, which the agent handles itself:
   :class:`BuiltinApprovalRequest` (the runtime waits for ``submit_approval``),
   :class:`HostToolCall` (the runtime waits for ``submit_tool_result``),
   :class:`AwaitingAnswers` (the runtime can make no progress until the host answers
   some of the requests it has sent) and :class:`TurnEnd` (the last event of a turn).

**Who emits which part** (docs/adapters.md has the full table): the adapter translates, the
core decides. For a call the adapter sends as :class:`BuiltinApprovalRequest` or
:class:`HostToolCall`, the core alone emits its ``tool-call``, approval and denial parts; the
adapter emits the result part of a built-in that ran, and projects built-in calls the runtime
ran without asking (``tool-call`` then result). A duplicated or missing part is a contract
violation: the agent keeps it out of the stream, logs it on ``harness_core.contract`` and
records it in ``HarnessSession.contract_violations``; the conformance suite fails on it.

When a request needs a person (a ``tool-approval-request``) or a client-side tool result,
the agent ends the current result slice. It cannot tell on its own whether the runtime
will send more requests first (parallel tool calls), so it keeps reading events until the
adapter emits :class:`AwaitingAnswers`: **an adapter must emit it whenever the runtime is
blocked waiting for answers**, otherwise a paused turn never returns to the application.
The agent never cancels a pending ``events()`` read at a pause; the iterator is read
again, from where it stopped, when the turn continues.

A capability the runtime lacks raises :class:`~harness_core.errors.HarnessCapabilityUnsupportedError`
from the method that needs it.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import attrs

from harness_core.approval import PermissionMode
from harness_core.hook_contexts import BuiltinExecutionContext
from harness_core.mcp import mcp_name_matches
from harness_core.parts.models import FinishReason, Usage
from harness_core.sandbox import Sandbox
from harness_core.skills import Skill
from harness_core.tools.definition import BuiltinTool, ToolCall
from harness_core.tools.output import ToolOutput
from harness_core.tools.schema import JsonSchema

__all__ = [
    "Adapter",
    "AdapterFactory",
    "AdapterSession",
    "AdapterTurn",
    "AwaitingAnswers",
    "BuiltinApprovalRequest",
    "BuiltinFilter",
    "BuiltinFilterMode",
    "HostToolCall",
    "HostToolSpec",
    "PendingRequest",
    "PendingRequestsTurn",
    "PromptRequest",
    "StartRequest",
    "TurnEnd",
]

JsonState: TypeAlias = dict[str, Any]
"""JSON-serializable state (resume or continue state)."""


class BuiltinFilterMode(enum.StrEnum):
    """How :attr:`BuiltinFilter.names` is meant: an allowlist or a denylist."""

    ACTIVE = "active"
    INACTIVE = "inactive"


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class BuiltinFilter:
    """Which built-ins the runtime may call, by harness-facing name.

    Attributes:
        mode: ``active`` (only ``names`` are allowed) or ``inactive`` (``names`` are not).
        names: harness-facing built-in names (common names, or native names for natives
            without a common name).
    """

    mode: BuiltinFilterMode
    names: frozenset[str] = attrs.field(converter=_names)

    def allows(self, name: str) -> bool:
        """True when the built-in (or MCP tool) ``name`` may be called.

        An entry ``mcp__<server>`` covers every tool ``mcp__<server>__<tool>`` of that server.
        """
        listed = name in self.names or any(mcp_name_matches(entry, name) for entry in self.names)
        return listed == (self.mode is BuiltinFilterMode.ACTIVE)


@attrs.frozen
class HostToolSpec:
    """A host tool as offered to the runtime.

    Attributes:
        name: the host tool name (the runtime may prefix it, e.g. ``mcp__host__name``).
        description: shown to the model.
        input_schema: JSON Schema of the input.
        read_only: the tool has no side effects.
    """

    name: str
    description: str
    input_schema: JsonSchema
    read_only: bool = False


@attrs.frozen(kw_only=True)
class StartRequest:
    """What :meth:`Adapter.start` receives.

    Attributes:
        session_id: the harness session id (stable across processes).
        permission_mode: the agent's permission mode for built-ins.
        builtin_filter: the built-in filter when the adapter filters natively, else ``None``.
        builtin_approvals: True when the host wants every built-in call to go through
            :class:`BuiltinApprovalRequest`; False lets the runtime run built-ins freely.
        sandbox: the session sandbox, or ``None``.
        host_tools: host tools the runtime may call (inactive ones already removed).
        withheld_host_tools: the agent's host tools this session withholds (inactive): a
            call to one the runtime makes anyway goes to the core as a :class:`HostToolCall`,
            which the core answers with ``execution-denied``.
        instructions: text appended to the runtime's system prompt, or ``None``.
        skills: the agent's skills (:mod:`harness_core.skills`), for adapters declaring ``skills``.
        resume_from: state from :meth:`AdapterSession.stop` of an earlier session.
        continue_from: state from :meth:`AdapterSession.suspend_turn` of an unfinished turn.
        execute_builtin: for a runtime running built-ins in this process: run each execution as
            ``await execute_builtin(call, BuiltinExecutionContext(...))`` (``harness_execute_builtin``).
    """

    session_id: str
    permission_mode: PermissionMode = PermissionMode.ALLOW_ALL
    builtin_filter: BuiltinFilter | None = None
    builtin_approvals: bool = False
    sandbox: Sandbox | None = None
    host_tools: Sequence[HostToolSpec] = ()
    withheld_host_tools: frozenset[str] = frozenset()
    instructions: str | None = None
    skills: Sequence[Skill] = ()
    resume_from: JsonState | None = None
    continue_from: JsonState | None = None
    execute_builtin: Callable[[ToolCall, BuiltinExecutionContext], Awaitable[ToolOutput]] | None = None


@attrs.frozen(kw_only=True)
class PromptRequest:
    """One user prompt for a new turn.

    Attributes:
        prompt: the user's message text.
        host_tools: host tools offered for this turn (inactive ones removed).
        instructions: text appended to the system prompt, or ``None``.
        output_schema: with structured output (``HarnessAgent(output=...)``), the JSON
            Schema (an object schema) the final answer must match; the adapter then makes
            the turn's **last step carry the answer as its text, the JSON document only**
            (the core validates it). Only sent to adapters declaring ``structured-output``.
        mode: ``"default"``, or ``"plan"``: the runtime plans without editing (only sent to
            adapters declaring ``plan-mode``; see :mod:`harness_core.capabilities`).
    """

    prompt: str
    host_tools: Sequence[HostToolSpec] = ()
    instructions: str | None = None
    output_schema: JsonSchema | None = None
    mode: Literal["default", "plan"] = "default"


@attrs.frozen
class BuiltinApprovalRequest:
    """Control event: the runtime waits for a decision on a built-in call.

    Answer with :meth:`AdapterTurn.submit_approval` using ``approval_id``.

    Attributes:
        approval_id: the id the answer refers to.
        call: the call, under its harness-facing name.
        tool: the declaration of a tool the runtime learned at run time and that no
            ``harness_declare_builtins`` declares (an MCP server's tool, say): its kind
            (an MCP ``readOnlyHint`` makes it read-only) and ``resources`` inform the
            permission mode and policies. ``None`` for declared built-ins; an undeclared
            call without it is treated as an edit.
    """

    approval_id: str
    call: ToolCall
    tool: BuiltinTool | None = None


@attrs.frozen
class HostToolCall:
    """Control event: the runtime called a host tool and waits for its result.

    ``call.input`` holds the raw arguments as the runtime sent them; ``call.tool_name`` is
    the host name (``call.native_tool_name`` the runtime's, e.g. ``mcp__host__name``).
    Answer with :meth:`AdapterTurn.submit_tool_result` using ``call.tool_call_id``.
    """

    call: ToolCall


@attrs.frozen
class AwaitingAnswers:
    """Control event: the runtime now waits for answers to requests it has already sent.

    Emit it after the :class:`BuiltinApprovalRequest` and :class:`HostToolCall` events of a
    step, once the runtime cannot progress without at least one answer. The agent uses it
    to end a paused result slice (see the module docs); when nothing it sent is waiting
    for a person, the agent ignores it, so emitting it after every batch of requests is
    always correct. Emitting it while the runtime could still send more requests only
    means those requests appear in the next result slice.
    """


@attrs.frozen(kw_only=True)
class TurnEnd:
    """Control event: the turn is over; the last event of :meth:`AdapterTurn.events`.

    Attributes:
        finish_reason: why it ended (``stop``, ``length``, ``error``, ``aborted``...).
        usage: the turn's token usage and cost.
        error: an error message when the runtime failed.
        error_type: a short machine-readable error kind (``"authentication"``,
            ``"rate-limit"``, ``"runtime-crashed"``...).
    """

    finish_reason: FinishReason = "stop"
    usage: Usage = attrs.field(factory=Usage)
    error: str | None = None
    error_type: str | None = None


@attrs.frozen
class PendingRequest:
    """One request the runtime holds open, as the runtime itself holds it.

    Returned by the optional :meth:`PendingRequestsTurn.pending_requests` capability.
    Before a paused turn continues, the agent checks every approval and client-side
    result against these, so an approval runs exactly the call that was shown.

    Attributes:
        kind: ``"approval"`` (a :class:`BuiltinApprovalRequest` awaiting
            ``submit_approval``) or ``"tool-result"`` (a :class:`HostToolCall` awaiting
            ``submit_tool_result``).
        call: the call the runtime will run or is waiting on: its id, the name the
            runtime uses (native or common) and the exact input it will use.
        approval_id: the approval id, for ``kind="approval"``; else ``None``.
    """

    kind: Literal["approval", "tool-result"]
    call: ToolCall
    approval_id: str | None = None


@runtime_checkable
class PendingRequestsTurn(Protocol):
    """Optional :class:`AdapterTurn` capability: what the runtime actually holds pending.

    An adapter turn that has a ``pending_requests()`` method lets the agent check, on every
    continue (same process or ``continue_from``), that each approved call's tool name,
    input, call id and approval id match what the runtime will run; a mismatch raises
    :class:`~harness_core.errors.TurnStateError` and nothing runs. Without it the agent can
    only trust its own record of the pending calls (the continuation state).
    """

    def pending_requests(self) -> Sequence[PendingRequest]:
        """The requests the runtime waits on now, from the runtime's own state (never from
        the core's copy). Called while the turn is paused; must not block."""
        ...


@runtime_checkable
class AdapterTurn(Protocol):
    """One running turn of a runtime."""

    def events(self) -> AsyncIterator[object]:
        """Native events, parts and control events, ending with one :class:`TurnEnd`.

        The iterator blocks while the runtime waits for an answer to a
        :class:`BuiltinApprovalRequest` or :class:`HostToolCall`.
        """
        ...

    async def submit_tool_result(self, tool_call_id: str, output: ToolOutput) -> None:
        """Answer a :class:`HostToolCall`. Raises ``KeyError`` for an unknown call id."""
        ...

    async def submit_approval(self, approval_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a :class:`BuiltinApprovalRequest`; a denial's reason reaches the model."""
        ...

    async def abort(self) -> None:
        """Stop the turn now; the runtime keeps no process running for it."""
        ...


@runtime_checkable
class AdapterSession(Protocol):
    """Live runtime state of one harness session.

    Optional attributes (read with ``getattr``, not part of the protocol):

    * ``runtime_tools: Mapping[str, BuiltinTool]``, the tools the runtime learned at run time
      (an MCP server's tools, by ``mcp__<server>__<tool>``) as they are known now;
      :attr:`HarnessSession.runtime_tools <harness_core.agent.session.HarnessSession.runtime_tools>`
      shows it to the host. An adapter that does not know them leaves it out.
    * ``workspace_root`` (``str`` or path), the absolute directory the runtime works in when
      the session got no sandbox and the adapter picked one itself (a ``cwd`` setting). The
      agent strips it from display paths in parts (``display_paths="relative"``), and the
      permission mode covers built-in paths inside it only (``allow-edits`` / ``allow-reads``
      ask for a path that resolves outside; without it every path counts as outside); with
      a sandbox, the sandbox root is used and the attribute is ignored.
    """

    async def prompt(self, request: PromptRequest) -> AdapterTurn:
        """Start a new turn."""
        ...

    async def resume_turn(self) -> AdapterTurn:
        """The in-flight turn restored from ``StartRequest.continue_from``.

        Its pending approvals and tool calls are answered with the ``submit_*`` methods;
        they are not repeated as events. Raises :class:`~harness_core.errors.HarnessCapabilityUnsupportedError`
        when the runtime cannot continue a turn in another process.
        """
        ...

    async def suspend_turn(self) -> JsonState:
        """Detach from the unfinished turn and return JSON state to continue it later."""
        ...

    async def stop(self) -> JsonState:
        """Detach from the runtime and return JSON state for ``resume_from``."""
        ...

    async def destroy(self) -> None:
        """Release everything (processes, temporary files). Idempotent."""
        ...

    async def compact(self) -> AdapterTurn:
        """Compact the runtime's context now, as a turn whose events include a compaction;
        raises :class:`~harness_core.errors.HarnessCapabilityUnsupportedError` where the runtime cannot."""
        ...


@runtime_checkable
class Adapter(Protocol):
    """One configured runtime.

    Attributes:
        harness_id: kebab-case id (``builtin``, ``claude-code``...).
        supports_builtin_approvals: built-in calls can be paused for a decision.
        supports_builtin_filtering: the runtime can be told not to offer some built-ins.

    An adapter whose factory takes ``mcp_servers=`` also exposes them as an ``mcp_servers``
    attribute (``{name: McpServerConfig}``, see :mod:`harness_core.mcp`), so that
    ``active_tools`` / ``inactive_tools`` can name ``mcp__<server>`` and
    ``mcp__<server>__<tool>`` before the servers are connected.
    """

    harness_id: str
    supports_builtin_approvals: bool
    supports_builtin_filtering: bool

    async def start(self, request: StartRequest) -> AdapterSession:
        """Open a session (new, resumed from ``resume_from`` or continued from ``continue_from``)."""
        ...


AdapterFactory: TypeAlias = Callable[..., Adapter]
"""Builds an :class:`Adapter` from keyword settings (``model=``, ``mcp_servers=``...);
called with no arguments when a harness is chosen by id."""

ProviderOptions: TypeAlias = Mapping[str, Any]
