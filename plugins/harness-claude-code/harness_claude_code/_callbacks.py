"""The callbacks Claude Code calls during a turn, routed to the session's current turn.

* ``can_use_tool`` (the SDK's permission callback): a host tool is always allowed (the
  core approves host calls itself); a built-in outside the session's filter is refused
  here; every other built-in becomes a :class:`~harness_core.BuiltinApprovalRequest` of
  the current turn, and Claude Code waits for the answer.
* the ``PreToolUse`` hook answers ``ask`` for every built-in, so that Claude Code sends
  even calls it would allow by its own rules (reads) to ``can_use_tool``.
* the host tool handler of the in-process MCP server hands the call to the turn as a
  :class:`~harness_core.HostToolCall`.

With no turn running, calls are refused. Source: ``claude-agent-sdk``'s ``CanUseTool``
and hook types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import anyio

from harness_core import BuiltinFilter, BuiltinTool, ToolOutput

from ._builtins import BY_NATIVE
from ._plan import plan_refusal
from ._settings import HOST_PREFIX
from ._state import DEFAULT_DENIAL
from ._structured import STRUCTURED_TOOL
from ._turn import ClaudeCodeTurn

if TYPE_CHECKING:
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext

__all__ = ["RuntimeCallbacks"]

_ASK: Final = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
_ALLOW: Final = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


def _deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


class RuntimeCallbacks:
    """Claude Code's callbacks for one session.

    Args:
        current_turn: returns the session's current turn (``None`` when there is none).
        builtin_filter: the session's built-in filter, or ``None``.
        plan_mode: returns True while the current turn is in plan mode (:mod:`._plan`).
        bypass: the session needs no built-in approvals (plan mode then allows reads at once).
        read_only_host_tools: returns the names of the current process's read-only host
            tools (``HostToolSpec.read_only``), the only host tools plan mode runs.
        mcp_declaration: the declaration of an external MCP tool by native name, or ``None``.
    """

    def __init__(self, current_turn: Callable[[], ClaudeCodeTurn | None], builtin_filter: BuiltinFilter | None,
                 *, plan_mode: Callable[[], bool] = lambda: False, bypass: bool = False,
                 read_only_host_tools: Callable[[], frozenset[str]] = frozenset,
                 mcp_declaration: Callable[[str], BuiltinTool | None] = lambda name: None) -> None:
        self._current_turn = current_turn
        self._filter = builtin_filter
        self._plan_mode = plan_mode
        self._bypass = bypass
        self._read_only_host = read_only_host_tools
        self._mcp_declaration = mcp_declaration

    def _plan_host_refusal(self, tool_name: str) -> str | None:
        """In plan mode, why the host tool ``tool_name`` may not run (``None``: read-only, it may)."""
        return plan_refusal(tool_name, None, host_read_only=tool_name[len(HOST_PREFIX):] in self._read_only_host())

    def _live_turn(self) -> ClaudeCodeTurn | None:
        turn = self._current_turn()
        return None if turn is None or turn.done else turn

    async def pre_tool_use(self, hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        """The ``PreToolUse`` hook: ``ask`` for built-ins, no opinion on host tools.

        In plan mode a read-only host tool is allowed here and any other host tool denied:
        left to it, CLI 2.1.332's ``plan`` mode hands every MCP call to its server-side
        safety check ("auto mode"), which never runs against a local endpoint, and refuses.
        """
        name = hook_input.get("tool_name") if isinstance(hook_input, dict) else None
        if isinstance(name, str) and name.startswith(HOST_PREFIX):
            if not self._plan_mode():
                return {}
            refusal = self._plan_host_refusal(name)
            return _ALLOW if refusal is None else _deny(refusal)
        return _ASK

    async def can_use_tool(self, tool_name: str, tool_input: dict[str, Any],
                           context: ToolPermissionContext) -> PermissionResultAllow | PermissionResultDeny:
        """The permission callback (see the module docstring)."""
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        if tool_name.startswith(HOST_PREFIX) and self._plan_mode():  # fail closed, as the hook
            refusal = self._plan_host_refusal(tool_name)
            if refusal is not None:
                return PermissionResultDeny(message=refusal)
        if tool_name.startswith(HOST_PREFIX) or tool_name == STRUCTURED_TOOL:  # the answer is no action
            return PermissionResultAllow(updated_input=tool_input)
        turn = self._live_turn()
        if turn is None:
            return PermissionResultDeny(message="No turn is running; the call was refused.")
        builtin = BY_NATIVE.get(tool_name)
        if builtin is not None and self._filter is not None and not self._filter.allows(builtin.name):
            reason = f"The built-in tool {builtin.name!r} is not active in this session."
            turn.refuse(context.tool_use_id, tool_name, tool_input, reason)
            return PermissionResultDeny(message=reason)
        if self._plan_mode():
            refusal = plan_refusal(tool_name, builtin or self._mcp_declaration(tool_name))
            if refusal is not None:
                turn.refuse(context.tool_use_id, tool_name, tool_input, refusal)
                return PermissionResultDeny(message=refusal)
            if self._bypass:
                return PermissionResultAllow(updated_input=tool_input)
        answer = await turn.request_approval(context.tool_use_id, tool_name, tool_input)
        _check_answerable(turn)
        if answer.approved:
            return PermissionResultAllow(updated_input=tool_input)
        return PermissionResultDeny(message=answer.reason or DEFAULT_DENIAL)

    async def host_call(self, tool_use_id: str | None, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
        """The in-process MCP server's handler: the current turn's host gives the result."""
        turn = self._live_turn()
        if turn is None:
            return ToolOutput("No turn is running; the host tool call was refused.", is_error=True)
        output = await turn.request_host_result(tool_use_id, tool_name, arguments)
        if turn.runtime_gone:
            # The SDK's MCP bridge would answer a cancellation with an error it then fails to
            # write to the dead CLI; wait instead until the SDK closes and cancels this request.
            await anyio.sleep_forever()
        return output


def _check_answerable(turn: ClaudeCodeTurn) -> None:
    """End the SDK's request task as cancelled when the CLI that asked is gone.

    ``claude-agent-sdk`` writes a callback's answer back to the CLI, and a write to a dead
    process raises ``CLIConnectionError`` in a detached task (an unhandled error in the
    host's event loop); on cancellation it writes nothing (``_handle_control_request``).
    """
    if turn.runtime_gone:
        raise anyio.get_cancelled_exc_class()("Claude Code exited; its request cannot be answered")
