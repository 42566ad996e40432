"""HarnessAgent: the API applications program a harness through.

An agent is configuration, built once (typically at module scope); live state belongs to
sessions. It merges the runtime's built-in tools with host tools, validates the whole
configuration at construction, and runs turns (README.md and docs/agent.md have examples).

Behaviour follows the AI SDK's ``HarnessAgent`` ("Harness Tools" page): built-ins by
common name in :attr:`HarnessAgent.tools`, ``active_tools`` / ``inactive_tools``,
``tool_approval`` for host tools, ``permission_mode`` for built-ins, ``tools_context`` with
``context_schema`` validation, pausing for approvals and client-side tools, and
continuing with results or approval responses (as arguments, or as trailing model
messages).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import anyio

from harness_core.adapter import Adapter
from harness_core.agent.answers import (
    ApprovalResponse,
    ToolResultContinuation,
    parse_approval_responses,
    parse_messages,
    parse_tool_results,
)
from harness_core.agent.config import AgentConfig
from harness_core.agent.config_view import AgentConfigView
from harness_core.agent.continuation_store import ContinuationStore
from harness_core.agent.display import DisplayPaths
from harness_core.agent.features import AgentFeatures, AgentMode, generate_with_repairs
from harness_core.agent.one_shot import ApproveCallback, run_prompt
from harness_core.agent.output import OutputSetting
from harness_core.agent.prepare import PrepareCall, PrepareCallOptions
from harness_core.agent.results import GenerateResult, StreamResult
from harness_core.agent.session import HarnessSession
from harness_core.agent.session_opening import open_session, own_session
from harness_core.agent.slice_start import check_answers, start_slice
from harness_core.agent.tool_context import OnToolExecutionEnd, ToolExecutionEnd
from harness_core.approval import PermissionMode, ToolApprovalSetting
from harness_core.capabilities import HarnessCapabilities, capabilities_of
from harness_core.hook_contexts import OnError
from harness_core.plugins.manager import HarnessPluginManager
from harness_core.sandbox import Sandbox
from harness_core.skills import Skill
from harness_core.telemetry import Telemetry
from harness_core.tools.definition import HarnessTool

__all__ = ["ApproveCallback", "HarnessAgent", "PrepareCallOptions", "ToolExecutionEnd"]

class HarnessAgent(AgentConfigView):
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
        tool_timeout: seconds before a host tool call becomes an error result (None: no limit).
        display_paths: ``"relative"`` (default) strips the workspace from paths in parts; ``"absolute"``.
        plugins: extra in-memory plugins (approval policies, tool packs, projections) for
            this agent only: they are registered on an isolated plugin manager (installed
            plugins are discovered too), or on ``plugin_manager`` when given.
        plugin_manager: the plugin manager to use (default: the process-wide one, or an
            isolated one when ``plugins`` are given).
        state_secret: HMAC key (16+ bytes) signing and verifying state (:mod:`~harness_core.agent.state_signing`).
        continuation_store: each suspended state continues once, in any process
            (:mod:`harness_core.agent.continuation_store`: ``SqliteContinuationStore``).
        output / stop_when / mode: structured output (a pydantic model class, a JSON Schema
            or an :class:`~harness_core.agent.output.Output`), stop conditions
            (:mod:`~harness_core.agent.stop`) and ``"default"`` / ``"plan"``; defaults that
            each call may override (docs/agent.md). Checked against :attr:`capabilities`.
        skills: :class:`~harness_core.skills.Skill` objects the runtime can load
            (:mod:`harness_core.skills`); needs the ``skills`` capability.
        telemetry: OpenTelemetry spans per turn, step and tool call (``True`` or a
            :class:`~harness_core.telemetry.Telemetry`; :mod:`harness_core.telemetry`).

    Raises:
        HarnessConfigurationError: an inconsistent configuration; the message names the
            option and the value (:class:`~harness_core.agent.config.AgentConfig` lists
            every check).
        ToolNameConflictError: two tools with the same name (both sources named).
        HarnessCapabilityUnsupportedError: ``output`` / ``stop_when`` / ``mode="plan"`` / ``skills`` on an
            adapter that cannot honour it (the reason is in the message).
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
        on_error: OnError = "return-to-model", tool_timeout: float | None = None,
        display_paths: DisplayPaths = "relative",
        plugins: Sequence[object] = (), plugin_manager: HarnessPluginManager | None = None,
        state_secret: str | bytes | None = None, continuation_store: ContinuationStore | None = None,
        output: OutputSetting | None = None, stop_when: object = None, mode: AgentMode | str = "default",
        skills: Sequence[Skill] | None = None, telemetry: Telemetry | bool | None = None,
    ) -> None:
        self.config = AgentConfig(
            harness=harness, harness_options=harness_options, tools=tools, include_plugin_tools=include_plugin_tools,
            active_tools=active_tools, inactive_tools=inactive_tools, tool_approval=tool_approval,
            permission_mode=permission_mode, tools_context=tools_context, prepare_call=prepare_call,
            instructions=instructions, on_tool_execution_end=on_tool_execution_end, on_error=on_error,
            tool_timeout=tool_timeout, display_paths=display_paths, plugins=plugins, plugin_manager=plugin_manager,
            state_secret=state_secret, continuation_store=continuation_store)
        """The checked, read-only configuration (:class:`~harness_core.agent.config.AgentConfig`)."""
        self.features = AgentFeatures(capabilities_of(self.config.adapter), output=output, stop_when=stop_when,
                                      mode=mode, skills=skills, telemetry=telemetry)
        """Output, stop-condition and mode defaults (:class:`~harness_core.agent.features.AgentFeatures`)."""

    @property
    def capabilities(self) -> HarnessCapabilities:
        """What the adapter supports, with how or why not (:mod:`harness_core.capabilities`)."""
        return self.features.capabilities

    def __repr__(self) -> str:
        return repr(self.config).replace("AgentConfig", "HarnessAgent", 1)

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
        return await open_session(self, self.config, session_id=session_id, sandbox=sandbox,
                                  continue_from=continue_from, resume_from=resume_from, tools_context=tools_context)

    def stream(
        self,
        *,
        session: HarnessSession,
        prompt: str | None = None,
        messages: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
        output: OutputSetting | None = None, stop_when: object = None, mode: AgentMode | None = None,
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
            output / stop_when / mode: this turn's, instead of the agent's (see the class).

        Returns:
            A :class:`~harness_core.agent.results.StreamResult`; the turn starts when it is consumed.

        Raises:
            TurnStateError: the session is closed or suspended, or (for a prompt) it has an
                unfinished turn, or (for continuation messages) no paused turn or ids that
                are not pending.
            ValueError: neither or both of ``prompt`` and ``messages``; malformed messages.
        """
        session = own_session(self, session)
        if (prompt is None) == (messages is None):
            raise ValueError("pass exactly one of prompt= or messages=")
        features = self.features.for_call(output=output, stop_when=stop_when, mode=mode)
        if messages is not None:
            parsed = parse_messages(messages)
            if parsed.is_continuation:
                return self.continue_stream(
                    session=session, tool_result_continuations=parsed.tool_results,
                    approval_responses=parsed.approval_responses, options=options, abort_signal=abort_signal,
                    stop_when=stop_when, output=output)
            prompt = parsed.prompt
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
        session.check_can_prompt()
        return start_slice(self.config, session, "prompt", prompt=prompt, options=options,
                           abort_signal=abort_signal, features=features)

    async def generate(
        self,
        *,
        session: HarnessSession,
        prompt: str | None = None,
        messages: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
        output: OutputSetting | None = None, stop_when: object = None, mode: AgentMode | None = None,
    ) -> GenerateResult:
        """Like :meth:`stream`, collected: returns the :class:`~harness_core.agent.results.GenerateResult`.

        An invalid structured output gets up to ``Output.repair_turns`` repair turns in the session.
        """
        def again(text: str | None) -> StreamResult:
            return self.stream(session=session, prompt=text, messages=messages if text is None else None,
                               options=options, abort_signal=abort_signal, output=output, stop_when=stop_when,
                               mode=mode)

        first = await again(prompt).consume()
        return await generate_with_repairs(first, lambda text: again(text).consume())

    def continue_stream(
        self,
        *,
        session: HarnessSession,
        tool_result_continuations: Iterable[ToolResultContinuation | Mapping[str, Any]] = (),
        approval_responses: Iterable[ApprovalResponse | Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
        stop_when: object = None, output: OutputSetting | None = None,
    ) -> StreamResult:
        """Continue the paused turn with client-side tool results and/or approval responses,
        or (with neither) a turn a ``stop_when`` condition stopped (state ``stopped``).

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
            stop_when: replaces the turn's stop conditions from now on.
            output: validates the turn's answer with this :class:`~harness_core.Output` (or model
                class) instead: it must have the turn's JSON Schema (the runtime got it with the
                prompt). A turn continued from suspended state keeps its schema without it, but
                its output is then a ``dict`` unless the agent's ``output=`` has that schema.

        Raises:
            TurnStateError: no paused turn (idle, running, suspended or closed session); an
                id that is not pending (the message lists the pending ones); a result for a
                call that still waits for its approval.
            ValueError / TypeError: malformed entries, duplicates, or nothing to continue with.
        """
        session = own_session(self, session)
        results = parse_tool_results(tool_result_continuations)
        approvals = parse_approval_responses(approval_responses)
        session.check_can_continue()
        check_answers(session, approvals, results)
        features = self.features.for_call(stop_when=stop_when, output=output)
        if session.control.features is not None:
            session.control.features.check_continuation(features)
        return start_slice(self.config, session, "continue", approvals=approvals, results=results, options=options,
                           abort_signal=abort_signal, features=features)

    async def continue_generate(
        self,
        *,
        session: HarnessSession,
        tool_result_continuations: Iterable[ToolResultContinuation | Mapping[str, Any]] = (),
        approval_responses: Iterable[ApprovalResponse | Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        abort_signal: anyio.Event | None = None,
        stop_when: object = None, output: OutputSetting | None = None,
    ) -> GenerateResult:
        """Like :meth:`continue_stream`, collected; an invalid structured output gets repair turns as in :meth:`generate`."""
        result = await self.continue_stream(
            session=session, tool_result_continuations=tool_result_continuations, approval_responses=approval_responses,
            options=options, abort_signal=abort_signal, stop_when=stop_when, output=output).consume()
        spec = result.structured.spec if result.structured is not None else None
        return await generate_with_repairs(result, lambda text: self.stream(
            session=session, prompt=text, options=options, abort_signal=abort_signal, output=spec).consume())

    def compact(self, *, session: HarnessSession) -> StreamResult:
        """Compact the runtime's context now, as a turn whose parts include ``compaction``.

        Returns:
            A :class:`~harness_core.agent.results.StreamResult` (consume it like any other).

        Raises:
            TurnStateError: a turn is unfinished or the session is closed.
            HarnessCapabilityUnsupportedError: (when consumed) the runtime cannot compact.
        """
        session = own_session(self, session)
        session.check_can_prompt()
        return start_slice(self.config, session, "compact")

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
        return await run_prompt(self, prompt, approve=approve, session_id=session_id, sandbox=sandbox,
                                tools_context=tools_context, options=options, max_continuations=max_continuations)

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
