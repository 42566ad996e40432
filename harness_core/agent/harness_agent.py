"""HarnessAgent: the API applications program a harness through.

An agent is configuration, built once (typically at module scope); live state belongs to
sessions. It merges the runtime's built-in tools with host tools, validates the whole
configuration at construction, and runs turns::

    from harness_core import HarnessAgent, define_harness_tool

    weather = define_harness_tool(
        name="weather", description="Current temperature of a city.",
        input={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        execute=lambda input, ctx: {"city": input["city"], "celsius": 12},
    )
    agent = HarnessAgent(harness="builtin", tools=[weather], permission_mode="allow-edits")

    async def main() -> None:
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="Weather in Paris?")
            print(result.text)

Behaviour follows the AI SDK's ``HarnessAgent`` ("Harness Tools" page): built-ins by
common name in :attr:`HarnessAgent.tools`, ``active_tools`` / ``inactive_tools``,
``tool_approval`` for host tools, ``permission_mode`` for built-ins, ``tools_context`` with
``context_schema`` validation, pausing for approvals and client-side tools, and
continuing with results or approval responses (as arguments, or as trailing model
messages).
"""

from __future__ import annotations

import functools
import inspect
import math
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import anyio

from harness_core.adapter import (
    Adapter,
    AdapterTurn,
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolSpec,
    StartRequest,
)
from harness_core.agent.answers import (
    ApprovalResponse,
    ToolResultContinuation,
    TurnState,
    parse_approval_responses,
    parse_messages,
    parse_tool_results,
)
from harness_core.agent.config import AgentConfiguration, PrepareCall, PrepareCallOptions, tool_list
from harness_core.agent.host_call import (
    HostCallSetup,
    OnToolExecutionEnd,
    ToolExecutionEnd,
)
from harness_core.agent.results import GenerateResult, StreamResult, collect_parts
from harness_core.agent.runner import Mode, SliceDriver
from harness_core.agent.session import HarnessSession, TurnRecord
from harness_core.agent.state import parse_resume_state, parse_suspended_state
from harness_core.approval import PermissionMode, ToolApprovalSetting
from harness_core.errors import HarnessConfigurationError, TurnStateError
from harness_core.hook_contexts import FilterRequest, OnError, ProjectionContext
from harness_core.parts.models import Part, ToolApprovalRequestPart
from harness_core.plugins.manager import HarnessPluginManager
from harness_core.sandbox import Sandbox
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = ["ApproveCallback", "HarnessAgent", "PrepareCallOptions", "ToolExecutionEnd"]

ApproveCallback = Callable[
    [ToolApprovalRequestPart],
    "bool | tuple[bool, str | None] | ApprovalResponse | Awaitable[bool | tuple[bool, str | None] | ApprovalResponse]",
]
"""Decides one approval request for :meth:`HarnessAgent.run`: True/False, ``(approved, reason)``
or an :class:`~harness_core.agent.answers.ApprovalResponse`."""



class HarnessAgent(AgentConfiguration):
    """A configured harness: runtime adapter, tools, filtering, approvals, context.

    Keyword Args:
        harness: a harness id (``"builtin"``, ``"claude-code"``...; its adapter factory
            comes from the ``harness_adapters`` hook) or an
            :class:`~harness_core.adapter.Adapter` instance.
        harness_options: keyword settings for the adapter factory (``model=``...), only
            with a harness id.
        tools: host tools: a sequence of :class:`~harness_core.tools.definition.HarnessTool` or a
            mapping of name to tool. Tools contributed by installed tool packs
            (``harness_tools``) are added unless ``include_plugin_tools=False``; the same
            name from both is a :class:`~harness_core.errors.ToolNameConflictError` naming
            both sources, and so is a host tool named like a built-in.
        include_plugin_tools: add tool-pack tools (default True).
        active_tools: allowlist of tool names (built-in and host) the runtime may call.
        inactive_tools: denylist of tool names. Not both.
        tool_approval: per host tool, an approval status (``not-applicable``, ``approved``,
            ``user-approval``, ``denied``) or a function ``(call, context) -> status | None``.
        permission_mode: ``allow-all`` (default), ``allow-edits`` (ask before shell
            commands) or ``allow-reads`` (ask before edits and shell commands); built-ins.
        tools_context: ``{tool name: context}`` for host tools that declare a
            ``context_schema`` (a pydantic model instance or a mapping validated into one).
        prepare_call: ``prepare_call(PrepareCallOptions) -> tools_context | None`` (sync or
            async), called at the start of every result slice; its result replaces the
            tools context for that slice.
        instructions: text appended to the runtime's system prompt.
        on_tool_execution_end: ``callback(ToolExecutionEnd)`` (sync or async) after each
            host tool call was executed or rejected by validation; it receives the detailed
            errors the model never sees.
        on_error: a raising host tool gives the model an error result
            (``"return-to-model"``, default) or fails the turn (``"fail"``).
        tool_timeout: seconds before a host tool call becomes an error result; ``None``
            (default) for no limit.
        plugins: extra in-memory plugins (approval policies, tool packs, projections) for
            this agent only: they are registered on an isolated plugin manager (installed
            plugins are discovered too), or on ``plugin_manager`` when given.
        plugin_manager: the plugin manager to use (default: the process-wide one, or an
            isolated one when ``plugins`` are given).

    Raises:
        HarnessConfigurationError: an inconsistent configuration; the message names the
            option and the value: ``active_tools`` with ``inactive_tools``; a filtered name
            that is no tool; built-in filtering on an adapter with neither native filtering
            nor built-in approvals; a permission mode other than ``allow-all`` on an adapter
            without built-in approvals; a bad ``tool_approval`` status or a key that is no
            host tool; ``tools_context`` when no tool declares a context schema, missing
            when one requires it (and no ``prepare_call``), or not matching a schema; an
            unknown harness id; a plugin that failed to register; ``tool_approval``
            entries while the core ``tool-approval`` plugin is not loaded, or a permission
            mode other than ``allow-all`` while the core ``permission-mode`` plugin is not
            loaded (``HARNESS_DISABLE_PLUGINS`` blocks it, say): the setting could not be
            honoured, so the agent fails closed instead of running tools unasked.
        ToolNameConflictError: two tools with the same name (both sources named).
    """

    def __init__(
        self,
        *,
        harness: str | Adapter,
        harness_options: Mapping[str, Any] | None = None,
        tools: Mapping[str, HarnessTool] | Sequence[HarnessTool] | None = None,
        include_plugin_tools: bool = True,
        active_tools: Iterable[str] | None = None,
        inactive_tools: Iterable[str] | None = None,
        tool_approval: Mapping[str, ToolApprovalSetting] | None = None,
        permission_mode: PermissionMode | str = PermissionMode.ALLOW_ALL,
        tools_context: Mapping[str, Any] | None = None,
        prepare_call: PrepareCall | None = None,
        instructions: str | None = None,
        on_tool_execution_end: OnToolExecutionEnd | None = None,
        on_error: OnError = "return-to-model",
        tool_timeout: float | None = None,
        plugins: Sequence[object] = (),
        plugin_manager: HarnessPluginManager | None = None,
    ) -> None:
        self._manager = self._make_manager(plugins, plugin_manager)
        hooks = self._manager.hooks
        self._adapter = self._make_adapter(harness, harness_options)
        self._harness_id = self._adapter.harness_id
        self._builtins: dict[str, BuiltinTool] = {tool.name: tool for tool in hooks.builtins(self._harness_id)}
        self._host_tools = self._merge_tools(tool_list(tools), include_plugin_tools)
        try:
            self._permission_mode = PermissionMode.parse(permission_mode)
        except ValueError as exc:
            raise HarnessConfigurationError(str(exc)) from None
        for name, value in (("prepare_call", prepare_call), ("on_tool_execution_end", on_tool_execution_end)):
            if value is not None and not callable(value):
                raise HarnessConfigurationError(f"{name} must be callable, got {type(value).__name__}")
        if on_error not in ("return-to-model", "fail"):
            raise HarnessConfigurationError(f"on_error must be 'return-to-model' or 'fail', got {on_error!r}")
        if tool_timeout is not None and (
            isinstance(tool_timeout, bool) or not isinstance(tool_timeout, int | float) or not tool_timeout > 0
            or not math.isfinite(tool_timeout)
        ):
            raise HarnessConfigurationError(f"tool_timeout must be a positive number of seconds or None, got {tool_timeout!r}")
        if instructions is not None and not isinstance(instructions, str):
            raise HarnessConfigurationError(f"instructions must be a string, got {type(instructions).__name__}")
        self._prepare_call = prepare_call
        self._on_tool_execution_end = on_tool_execution_end
        self._on_error: OnError = on_error
        self._tool_timeout = float(tool_timeout) if tool_timeout is not None else None
        self._instructions = instructions
        self._active, self._inactive = self._check_filters(active_tools, inactive_tools)
        self._check_capabilities()
        self._tool_approval = self._check_tool_approval(tool_approval)
        self._check_policy_plugins()
        self._tools_context = self._check_tools_context(tools_context, where="tools_context", at_construction=True)

    # -- sessions --------------------------------------------------------------------

    async def create_session(
        self,
        *,
        session_id: str | None = None,
        sandbox: Sandbox | None = None,
        continue_from: Mapping[str, Any] | str | None = None,
        resume_from: Mapping[str, Any] | str | None = None,
        tools_context: Mapping[str, Any] | None = None,
    ) -> HarnessSession:
        """Open a session on the runtime: new, resumed, or continuing a suspended turn.

        Args:
            session_id: the id to use (default: a new random id; with ``continue_from`` /
                ``resume_from``, the stored one).
            sandbox: the session sandbox; host tools get ``sandbox.restricted()``.
            continue_from: state from :meth:`HarnessSession.suspend_turn` (mapping or JSON
                text): the session starts paused on that turn.
            resume_from: state from :meth:`HarnessSession.stop`: the runtime's
                conversation continues with the next prompt.
            tools_context: this session's tools context map (replaces the agent's); rebind
                it explicitly when continuing a suspended turn.

        Raises:
            HarnessConfigurationError: both ``continue_from`` and ``resume_from``; state of
                another version or harness, or malformed; a ``session_id`` that contradicts
                the state; a sandbox that is not a :class:`~harness_core.sandbox.Sandbox`;
                a bad ``tools_context``; a ``harness_filter_tools`` policy removing built-ins
                the adapter cannot filter.
            HarnessCapabilityUnsupportedError: the runtime cannot continue a turn in
                another process.
        """
        if continue_from is not None and resume_from is not None:
            raise HarnessConfigurationError("pass either continue_from or resume_from, not both")
        suspended = parse_suspended_state(continue_from, harness_id=self._harness_id) if continue_from is not None else None
        resumed = parse_resume_state(resume_from, harness_id=self._harness_id) if resume_from is not None else None
        stored_id = suspended.session_id if suspended else resumed.session_id if resumed else None
        if session_id is not None and (not isinstance(session_id, str) or not session_id):
            raise HarnessConfigurationError(f"session_id must be a non-empty string, got {session_id!r}")
        if session_id is not None and stored_id is not None and session_id != stored_id:
            raise HarnessConfigurationError(
                f"session_id {session_id!r} contradicts the state, which belongs to session {stored_id!r}"
            )
        session_id = session_id or stored_id or uuid.uuid4().hex
        if sandbox is not None and not isinstance(sandbox, Sandbox):
            raise HarnessConfigurationError(
                f"sandbox must implement harness_core.Sandbox (root, resolve, restricted, read_text_file, "
                f"write_text_file, run_command, stop), got {type(sandbox).__name__}"
            )
        session_context = (
            self._check_tools_context(tools_context, where="create_session(tools_context=...)", at_construction=False)
            if tools_context is not None else None
        )
        host_inactive, builtin_inactive = self._user_inactive()
        remaining: list[HarnessTool | BuiltinTool] = [
            tool for name, tool in self.tools.items() if name not in host_inactive and name not in builtin_inactive
        ]
        removed = self._manager.hooks.filter_tools(remaining, FilterRequest(
            harness_id=self._harness_id, session_id=session_id, permission_mode=self._permission_mode,
            active_tools=self._active, inactive_tools=self._inactive,
        ))
        for name in sorted(removed):
            if name in self._host_tools:
                host_inactive.setdefault(name, "removed by a harness_filter_tools policy")
            elif name in self._builtins:
                builtin_inactive.setdefault(name, "removed by a harness_filter_tools policy")
        adapter = self._adapter
        allowlist = frozenset(n for n in self._active if n in self._builtins and n not in builtin_inactive) \
            if self._active is not None else None
        builtin_filter: BuiltinFilter | None = None
        by_approval = False
        if builtin_inactive:
            if adapter.supports_builtin_filtering:
                builtin_filter = (
                    BuiltinFilter(BuiltinFilterMode.ACTIVE, allowlist) if allowlist is not None
                    else BuiltinFilter(BuiltinFilterMode.INACTIVE, frozenset(builtin_inactive))
                )
            elif adapter.supports_builtin_approvals:
                by_approval = True
            else:
                raise HarnessConfigurationError(
                    f"a harness_filter_tools policy removed built-ins {', '.join(sorted(builtin_inactive))}, but harness "
                    f"{self._harness_id!r} can neither filter built-ins natively nor deny them through approvals"
                )
        builtin_approvals = adapter.supports_builtin_approvals and (
            by_approval or self._manager.hooks.builtin_calls_need_approval(self._permission_mode)
        )
        setup = HostCallSetup(
            hooks=self._manager.hooks,
            harness_id=self._harness_id,
            session_id=session_id,
            permission_mode=self._permission_mode,
            workspace_root=str(sandbox.root) if sandbox is not None else None,
            tools=self._host_tools,
            inactive=host_inactive,
            tool_approval=self._tool_approval,
            on_error=self._on_error,
            timeout=self._tool_timeout,
            sandbox=sandbox.restricted() if sandbox is not None else None,
            on_end=self._on_tool_execution_end,
        )
        request = StartRequest(
            session_id=session_id,
            permission_mode=self._permission_mode,
            builtin_filter=builtin_filter,
            builtin_approvals=builtin_approvals,
            sandbox=sandbox,
            host_tools=self._specs(host_inactive),
            instructions=self._instructions,
            resume_from=dict(resumed.adapter) if resumed else None,
            continue_from=dict(suspended.adapter) if suspended else None,
        )
        adapter_session = await adapter.start(request)
        session = HarnessSession(
            agent=self, session_id=session_id, adapter_session=adapter_session, sandbox=sandbox,
            tools_context=session_context, setup=setup, inactive_builtins=builtin_inactive,
            builtin_allowlist=allowlist if by_approval else None, builtin_filter=builtin_filter,
            builtin_approvals=builtin_approvals,
        )
        if suspended is not None:
            try:
                adapter_turn = await adapter_session.resume_turn()
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await adapter_session.destroy()
                raise
            session._turn = self._restored_turn(session, adapter_turn, suspended)
            session._set_state(TurnState(suspended.state))
        return session

    def _restored_turn(self, session: HarnessSession, adapter_turn: AdapterTurn, state: Any) -> TurnRecord:
        projection = ProjectionContext(
            harness_id=self._harness_id, session_id=session.session_id,
            builtins={b.native_name: b for b in self._builtins.values()}, host_tools=dict(self._host_tools),
        )
        record = TurnRecord(adapter_turn=adapter_turn, projection=projection)
        record.pending_approvals.update(state.pending_approvals)
        record.pending_results.update(state.pending_tool_results)
        record.decided.update(state.decided)
        record.seen_calls.update(p.tool_call_id for p in state.pending_approvals.values())
        record.seen_calls.update(state.pending_tool_results)
        record.seen_calls.update(state.decided)
        record.finished_calls.update(k for k, v in state.decided.items() if v.status == "denied")
        return record

    def _specs(self, inactive: Mapping[str, str]) -> list[HostToolSpec]:
        return [
            HostToolSpec(name=tool.name, description=tool.description, input_schema=tool.json_schema,
                         read_only=tool.read_only)
            for name, tool in self._host_tools.items() if name not in inactive
        ]

    def _host_tool_specs(self, session: HarnessSession) -> list[HostToolSpec]:
        return self._specs(session._setup.inactive)

    # -- turns -------------------------------------------------------------------------

    def _check_session(self, session: object) -> HarnessSession:
        if not isinstance(session, HarnessSession):
            raise TypeError(f"session must be a HarnessSession from agent.create_session(), got {type(session).__name__}")
        if session.agent is not self:
            raise HarnessConfigurationError(
                f"session {session.session_id!r} belongs to another agent (harness {session.harness_id!r}); "
                "run its turns through that agent"
            )
        return session

    def stream(
        self,
        *,
        session: HarnessSession,
        prompt: str | None = None,
        messages: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
    ) -> StreamResult:
        """Start a turn with ``prompt`` (or continue one from ``messages``) and stream it.

        Args:
            session: a session of this agent.
            prompt: the user's message.
            messages: AI SDK model messages instead of ``prompt``: a trailing user message
                starts a turn; a trailing tool message with ``tool-result`` /
                ``tool-approval-response`` parts continues the paused turn (see
                :func:`~harness_core.agent.answers.parse_messages`).
            options: call options handed to ``prepare_call``.
            abort_signal: an :class:`anyio.Event`; setting it aborts the turn.

        Returns:
            A :class:`~harness_core.agent.results.StreamResult`; the turn starts when it is consumed.

        Raises:
            TurnStateError: the session is closed or suspended, or (for a prompt) it has an
                unfinished turn, or (for continuation messages) no paused turn or ids that
                are not pending.
            ValueError: neither or both of ``prompt`` and ``messages``; malformed messages.
        """
        session = self._check_session(session)
        if (prompt is None) == (messages is None):
            raise ValueError("pass exactly one of prompt= or messages=")
        if messages is not None:
            parsed = parse_messages(messages)
            if parsed.is_continuation:
                return self.continue_stream(
                    session=session, tool_result_continuations=parsed.tool_results,
                    approval_responses=parsed.approval_responses, options=options, abort_signal=abort_signal,
                )
            prompt = parsed.prompt
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
        session._check_can_prompt()
        return self._start(session, "prompt", prompt=prompt, options=options, abort_signal=abort_signal)

    async def generate(
        self,
        *,
        session: HarnessSession,
        prompt: str | None = None,
        messages: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
    ) -> GenerateResult:
        """Like :meth:`stream`, collected: returns the :class:`~harness_core.agent.results.GenerateResult`."""
        result = self.stream(session=session, prompt=prompt, messages=messages, options=options,
                             abort_signal=abort_signal)
        return await result.consume()

    def continue_stream(
        self,
        *,
        session: HarnessSession,
        tool_result_continuations: Iterable[ToolResultContinuation | Mapping[str, Any]] = (),
        approval_responses: Iterable[ApprovalResponse | Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
    ) -> StreamResult:
        """Continue the paused turn with client-side tool results and/or approval responses.

        Decisions and results are keyed by id: answering some of the pending requests leaves
        the others pending (the new slice ends paused again once the answered calls have
        their results). An approved host call executes now; a denied one gets an
        ``execution-denied`` result and never executes.

        Args:
            session: a session whose turn is ``awaiting-approval`` / ``awaiting-tool-result``.
            tool_result_continuations: ``{"tool_call_id", "output", "is_error"}`` entries
                (or :class:`~harness_core.agent.answers.ToolResultContinuation`).
            approval_responses: ``{"approval_id", "approved", "reason"}`` entries (or
                :class:`~harness_core.agent.answers.ApprovalResponse`).
            options / abort_signal: as for :meth:`stream`.

        Raises:
            TurnStateError: no paused turn (idle, running, suspended or closed session); an
                id that is not pending (the message lists the pending ones); a result for a
                call that still waits for its approval.
            ValueError / TypeError: malformed entries, duplicates, or nothing to continue with.
        """
        session = self._check_session(session)
        results = parse_tool_results(tool_result_continuations)
        approvals = parse_approval_responses(approval_responses)
        session._check_can_continue()
        self._check_answers(session, approvals, results)
        return self._start(session, "continue", approvals=approvals, results=results, options=options,
                           abort_signal=abort_signal)

    async def continue_generate(
        self,
        *,
        session: HarnessSession,
        tool_result_continuations: Iterable[ToolResultContinuation | Mapping[str, Any]] = (),
        approval_responses: Iterable[ApprovalResponse | Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
    ) -> GenerateResult:
        """Like :meth:`continue_stream`, collected."""
        result = self.continue_stream(
            session=session, tool_result_continuations=tool_result_continuations,
            approval_responses=approval_responses, options=options, abort_signal=abort_signal,
        )
        return await result.consume()

    def _check_answers(self, session: HarnessSession, approvals: Sequence[ApprovalResponse],
                       results: Sequence[ToolResultContinuation]) -> None:
        turn = session._turn
        assert turn is not None
        if not approvals and not results:
            raise ValueError(
                "nothing to continue with: pass tool_result_continuations and/or approval_responses "
                f"(pending approvals: {', '.join(turn.pending_approvals) or 'none'}; pending tool calls: "
                f"{', '.join(turn.pending_results) or 'none'})"
            )
        seen: set[str] = set()
        for response in approvals:
            if response.approval_id in seen:
                raise ValueError(f"approval id {response.approval_id!r} is answered twice")
            seen.add(response.approval_id)
            if response.approval_id not in turn.pending_approvals:
                raise TurnStateError(
                    f"approval id {response.approval_id!r} is not pending in session {session.session_id!r} "
                    f"(pending approvals: {', '.join(turn.pending_approvals) or 'none'})"
                )
        awaiting_approval = {p.tool_call_id: a for a, p in turn.pending_approvals.items()}
        for continuation in results:
            if continuation.tool_call_id in seen:
                raise ValueError(f"tool call {continuation.tool_call_id!r} has two results")
            seen.add(continuation.tool_call_id)
            if continuation.tool_call_id in awaiting_approval:
                raise TurnStateError(
                    f"tool call {continuation.tool_call_id!r} still waits for its approval "
                    f"({awaiting_approval[continuation.tool_call_id]!r}); answer the approval first"
                )
            if continuation.tool_call_id not in turn.pending_results:
                raise TurnStateError(
                    f"tool call {continuation.tool_call_id!r} is not waiting for a result in session "
                    f"{session.session_id!r} (pending tool calls: {', '.join(turn.pending_results) or 'none'})"
                )

    def _start_compaction(self, session: HarnessSession) -> StreamResult:
        session = self._check_session(session)
        session._check_can_prompt()
        return self._start(session, "compact")

    def _start(
        self,
        session: HarnessSession,
        mode: Mode,
        *,
        prompt: str | None = None,
        approvals: Sequence[ApprovalResponse] = (),
        results: Sequence[ToolResultContinuation] = (),
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
    ) -> StreamResult:
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping, got {type(options).__name__}")
        if abort_signal is not None and not isinstance(abort_signal, anyio.Event):
            raise TypeError(f"abort_signal must be an anyio.Event, got {type(abort_signal).__name__}")

        def source(result: StreamResult) -> AsyncGenerator[Part, None]:
            return self._produce(result, session, mode, prompt=prompt, approvals=approvals, results=results,
                                 options=dict(options or {}), abort_signal=abort_signal)

        return StreamResult(source, session=session)

    async def _contexts_for(self, session: HarnessSession, prompt: str | None,
                            options: Mapping[str, Any]) -> Mapping[str, Any]:
        contexts: Mapping[str, Any] = session.tools_context
        if self._prepare_call is None:
            return contexts
        prepared = self._prepare_call(PrepareCallOptions(session=session, prompt=prompt, options=options,
                                                         tools_context=contexts))
        if inspect.isawaitable(prepared):
            prepared = await prepared
        if prepared is None:
            return contexts
        if not isinstance(prepared, Mapping):
            raise TypeError(f"prepare_call must return a tools context mapping or None, got {type(prepared).__name__}")
        context_tools = self._context_tools()
        for key in prepared:
            if key not in context_tools:
                raise HarnessConfigurationError(
                    f"prepare_call returned a context for {key!r}, but no host tool named {key!r} declares a "
                    f"context_schema (tools taking a context: {', '.join(sorted(context_tools)) or 'none'})"
                )
        return dict(prepared)

    async def _produce(
        self,
        result: StreamResult,
        session: HarnessSession,
        mode: Mode,
        *,
        prompt: str | None,
        approvals: Sequence[ApprovalResponse],
        results: Sequence[ToolResultContinuation],
        options: Mapping[str, Any],
        abort_signal: anyio.Event | None,
    ) -> AsyncGenerator[Part, None]:
        # State is checked again here: the result may be consumed long after stream() returned.
        if mode == "continue":
            session._check_can_continue()
            self._check_answers(session, approvals, results)
        else:
            session._check_can_prompt()
        session._active = result
        try:
            contexts = await self._contexts_for(session, prompt, options)
            result._tools_context = contexts
            compact_turn = await session._adapter_session.compact() if mode == "compact" else None
        except BaseException:
            session._active = None
            raise
        send, receive = anyio.create_memory_object_stream[Part](math.inf)
        driver = SliceDriver(session, result, send, mode=mode, prompt=prompt, approvals=approvals,
                             results=results, contexts=contexts, compact_turn=compact_turn)

        async def drive() -> None:
            async with anyio.create_task_group() as inner:
                if abort_signal is not None:
                    async def watch() -> None:
                        await abort_signal.wait()
                        result.abort("abort_signal was set")

                    inner.start_soon(watch)
                await driver.run()
                inner.cancel_scope.cancel()

        async with anyio.create_task_group() as tg:
            tg.start_soon(drive)
            async with receive:
                async for part in receive:
                    yield part

    # -- one-shot conveniences -----------------------------------------------------------

    async def run(
        self,
        prompt: str,
        *,
        approve: ApproveCallback | None = None,
        session_id: str | None = None,
        sandbox: Sandbox | None = None,
        tools_context: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        max_continuations: int = 100,
    ) -> GenerateResult:
        """Run one prompt in a fresh session, answering approvals with ``approve``; destroy it.

        Args:
            prompt: the user's message.
            approve: decides each ``tool-approval-request`` (``True``/``False``,
                ``(approved, reason)`` or an :class:`~harness_core.agent.answers.ApprovalResponse`;
                sync or async). Without it, the result stops at the first approval request
                (finish reason ``awaiting-approval``) and the turn is dropped.
            session_id / sandbox / tools_context: as for :meth:`create_session`.
            options: call options for ``prepare_call``.
            max_continuations: how many approval rounds before giving up (the result then
                ends ``awaiting-approval``).

        Returns:
            One :class:`~harness_core.agent.results.GenerateResult` over every slice of the turn.
            A client-side tool call ends it ``awaiting-tool-result`` (use a session to
            supply results).
        """
        parts: list[Part] = []
        async with await self.create_session(session_id=session_id, sandbox=sandbox,
                                             tools_context=tools_context) as session:
            result = await self.generate(session=session, prompt=prompt, options=options)
            parts.extend(result.parts)
            rounds = 0
            while (approve is not None and session.state is TurnState.AWAITING_APPROVAL
                   and rounds < max_continuations):
                rounds += 1
                requests = [r for r in result.approval_requests if r.approval_id in session.pending_approvals]
                responses = [await _decide(approve, request) for request in requests]
                result = await self.continue_generate(session=session, approval_responses=responses,
                                                      options=options)
                parts.extend(result.parts)
        return collect_parts(parts)

    def run_sync(
        self,
        prompt: str,
        *,
        approve: ApproveCallback | None = None,
        session_id: str | None = None,
        sandbox: Sandbox | None = None,
        tools_context: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        backend: Literal["asyncio", "trio"] = "asyncio",
    ) -> GenerateResult:
        """:meth:`run` for scripts: runs its own event loop (``anyio.run``); not from async code."""
        call = functools.partial(self.run, prompt, approve=approve, session_id=session_id, sandbox=sandbox,
                                 tools_context=tools_context, options=options)
        return anyio.run(call, backend=backend)


async def _decide(approve: ApproveCallback, request: ToolApprovalRequestPart) -> ApprovalResponse:
    decision: Any = approve(request)
    if inspect.isawaitable(decision):
        decision = await decision
    if isinstance(decision, ApprovalResponse):
        return decision
    if isinstance(decision, bool):
        return ApprovalResponse(request.approval_id, decision)
    if isinstance(decision, tuple) and len(decision) == 2 and isinstance(decision[0], bool):
        return ApprovalResponse(request.approval_id, decision[0], decision[1])
    raise TypeError(
        f"approve() must return a bool, (bool, reason) or ApprovalResponse for approval {request.approval_id!r}, "
        f"got {decision!r}"
    )
