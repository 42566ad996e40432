"""Opening a session: filters, the runtime's start request, a restored turn.

:func:`open_session` does the work of
:meth:`HarnessAgent.create_session() <harness_core.agent.harness_agent.HarnessAgent.create_session>`
(whose docstring lists the arguments and errors): it applies ``active_tools`` /
``inactive_tools`` and the ``harness_filter_tools`` policies, decides how built-ins are
filtered (natively, or denied through approvals) and whether built-in calls go through
approvals, starts the adapter session, and restores a suspended turn.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import attrs

from harness_core.adapter import (
    AdapterTurn,
    BuiltinFilter,
    BuiltinFilterMode,
    HostToolSpec,
    StartRequest,
)
from harness_core.agent.call_settings import CallSettings, result_content_of
from harness_core.agent.config import AgentConfig
from harness_core.agent.continuation_store import claim_state
from harness_core.agent.features import TurnFeatures
from harness_core.agent.session import HarnessSession
from harness_core.agent.session_control import SessionControl
from harness_core.agent.state import SuspendedTurnModel, parse_resume_state, parse_suspended_state
from harness_core.agent.state_signing import check_signature
from harness_core.agent.turn_record import TurnRecord
from harness_core.agent.turn_state import TurnState
from harness_core.errors import HarnessConfigurationError
from harness_core.hook_contexts import FilterRequest, ProjectionContext
from harness_core.mcp import split_mcp_name
from harness_core.sandbox import Sandbox, restricted_view
from harness_core.tools.definition import BuiltinTool, HarnessTool

if TYPE_CHECKING:
    from harness_core.agent.harness_agent import HarnessAgent

__all__ = ["host_tool_specs", "open_session", "own_session", "restored_turn"]


async def open_session(
    agent: HarnessAgent,
    config: AgentConfig,
    *,
    session_id: str | None,
    sandbox: Sandbox | None,
    continue_from: Mapping[str, Any] | str | None,
    resume_from: Mapping[str, Any] | str | None,
    tools_context: Mapping[str, Any] | None,
) -> HarnessSession:
    """Open a session of ``agent`` (see ``HarnessAgent.create_session``)."""

    def is_mcp_name(name: str) -> bool:
        parts = split_mcp_name(name)
        return parts is not None and parts[0] in config.mcp_servers

    if continue_from is not None and resume_from is not None:
        raise HarnessConfigurationError("pass either continue_from or resume_from, not both")
    signer = config.state_signer
    suspended = parse_suspended_state(check_signature(continue_from, signer, "continue_from"),
                                      harness_id=config.harness_id) if continue_from is not None else None
    resumed = parse_resume_state(check_signature(resume_from, signer, "resume_from"),
                                 harness_id=config.harness_id) if resume_from is not None else None
    restored_output = agent.features.restore_output(
        suspended.output.model_dump(mode="json") if suspended is not None and suspended.output is not None else None)
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
            f"write_text_file, run_command, spawn, stop), got {type(sandbox).__name__}"
        )
    session_context = (
        config.check_tools_context(tools_context, where="create_session(tools_context=...)", at_construction=False)
        if tools_context is not None else None
    )
    host_inactive, builtin_inactive = config.user_inactive()
    remaining: list[HarnessTool | BuiltinTool] = [
        tool for name, tool in config.tools.items() if name not in host_inactive and name not in builtin_inactive
    ]
    removed = config.plugin_manager.hooks.filter_tools(remaining, FilterRequest(
        harness_id=config.harness_id, session_id=session_id, permission_mode=config.permission_mode,
        active_tools=config.active_tools, inactive_tools=config.inactive_tools,
    ))
    for name in sorted(removed):
        if name in config.host_tools:
            host_inactive.setdefault(name, "removed by a harness_filter_tools policy")
        elif name in config.builtins:
            builtin_inactive.setdefault(name, "removed by a harness_filter_tools policy")
    adapter = config.adapter
    allowlist = frozenset(n for n in config.active_tools
                          if (n in config.builtins or is_mcp_name(n)) and n not in builtin_inactive) \
        if config.active_tools is not None else None
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
                f"{config.harness_id!r} can neither filter built-ins natively nor deny them through approvals"
            )
    builtin_approvals = adapter.supports_builtin_approvals and (
        by_approval or config.plugin_manager.hooks.builtin_calls_need_approval(config.permission_mode)
    )
    settings = CallSettings(
        hooks=config.plugin_manager.hooks,
        harness_id=config.harness_id,
        session_id=session_id,
        permission_mode=config.permission_mode,
        workspace_root=str(sandbox.root) if sandbox is not None else None,
        builtins=config.builtins,
        tools=config.host_tools,
        inactive=host_inactive,
        inactive_builtins=builtin_inactive,
        builtin_allowlist=allowlist if by_approval else None,
        tool_approval=config.tool_approval,
        on_error=config.on_error,
        timeout=config.tool_timeout,
        # Sealed whatever the Sandbox implementation returns (one that returns itself included).
        sandbox=restricted_view(sandbox.restricted()) if sandbox is not None else None,
        on_end=config.on_tool_execution_end,
    )
    request = StartRequest(
        session_id=session_id,
        permission_mode=config.permission_mode,
        builtin_filter=builtin_filter,
        builtin_approvals=builtin_approvals,
        sandbox=sandbox,
        host_tools=host_tool_specs(config, host_inactive),
        withheld_host_tools=frozenset(name for name in host_inactive if name in config.host_tools),
        instructions=config.instructions,
        skills=agent.features.skills,
        resume_from=dict(resumed.adapter) if resumed else None,
        continue_from=dict(suspended.adapter) if suspended else None,
        execute_builtin=config.plugin_manager.hooks.execute_builtin,
    )
    if suspended is not None:
        # Exactly once: claim the state before the runtime starts (ContinuationReplayError).
        state = suspended.model_dump(mode="json")
        await anyio.to_thread.run_sync(claim_state, config.continuation_store, state, session_id)
    adapter_session = await adapter.start(request)
    runtime_root = getattr(adapter_session, "workspace_root", None)
    if sandbox is None and runtime_root is not None:  # the permission mode covers this workspace only
        settings = attrs.evolve(settings, workspace_root=str(runtime_root))
    if config.display_paths == "relative":
        root = sandbox.root if sandbox is not None else getattr(adapter_session, "workspace_root", None)
        settings = attrs.evolve(settings, display_root=str(root) if root is not None else None)
    settings = attrs.evolve(settings, result_content=result_content_of(adapter_session))
    control = SessionControl(adapter_session=adapter_session, settings=settings)
    session = HarnessSession(
        agent=agent, session_id=session_id, control=control, sandbox=sandbox, tools_context=session_context,
        builtin_filter=builtin_filter, builtin_approvals=builtin_approvals,
    )
    if suspended is not None:
        try:
            adapter_turn = await adapter_session.resume_turn()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await adapter_session.destroy()
            raise
        control.turn = restored_turn(config, session_id, adapter_turn, suspended)
        control.state = TurnState(suspended.state)
        control.trace_parent = suspended.traceparent
        control.features = TurnFeatures.restored(restored_output)
    return session


def restored_turn(config: AgentConfig, session_id: str, adapter_turn: AdapterTurn,
                  state: SuspendedTurnModel) -> TurnRecord:
    """The :class:`TurnRecord` of a turn continued from suspended ``state``."""
    projection = ProjectionContext(
        harness_id=config.harness_id, session_id=session_id,
        builtins={b.native_name: b for b in config.builtins.values()}, host_tools=dict(config.host_tools),
    )
    record = TurnRecord(adapter_turn=adapter_turn, projection=projection)
    record.pending_approvals.update(state.pending_approvals)
    record.pending_results.update(state.pending_tool_results)
    record.decided.update(state.decided)
    for call_id in [*(p.tool_call_id for p in state.pending_approvals.values()), *state.pending_tool_results,
                    *state.decided]:
        record.announced[call_id] = "core"
    record.finished.update(k for k, v in state.decided.items() if v.status == "denied")
    record.held_steering.extend(state.steering)
    return record


def host_tool_specs(config: AgentConfig, inactive: Mapping[str, str]) -> list[HostToolSpec]:
    """The active host tools as the runtime is offered them."""
    return [
        HostToolSpec(name=tool.name, description=tool.description, input_schema=tool.json_schema,
                     read_only=tool.read_only)
        for name, tool in config.host_tools.items() if name not in inactive
    ]



def own_session(agent: HarnessAgent, session: object) -> HarnessSession:
    """``session``, checked to be a session of ``agent``.

    Raises:
        TypeError: not a :class:`HarnessSession`.
        HarnessConfigurationError: a session of another agent.
    """
    if not isinstance(session, HarnessSession):
        raise TypeError(f"session must be a HarnessSession from agent.create_session(), got {type(session).__name__}")
    if session.agent is not agent:
        raise HarnessConfigurationError(
            f"session {session.session_id!r} belongs to another agent (harness {session.harness_id!r}); "
            "run its turns through that agent"
        )
    return session
