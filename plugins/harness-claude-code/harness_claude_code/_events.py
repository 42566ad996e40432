"""The native events a Claude Code turn yields, before projection into stream parts.

A turn wraps every ``claude-agent-sdk`` message in a :class:`ClaudeCodeEvent` together
with a read-only :class:`TurnView` of what the host already knows about the turn (which
calls it was asked about, which it denied, which host tool calls it already handles), so
that the projection (``harness_project_event``) is a pure function of the event and its
per-turn state.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from ._settings import HOST_SERVER

__all__ = ["ClaudeCodeEvent", "TurnView"]


@attrs.define
class TurnView:
    """What the turn knows that the SDK messages do not say.

    Attributes:
        host_server: the MCP server name carrying host tools (``mcp__<host_server>__x``).
        withhold_calls: built-in approvals are on: the projection holds a built-in's
            ``tool-call`` part back until the call's result shows whether the host was
            asked about it (then the core emitted the part) or not (then it is emitted
            just before the result).
        asked: runtime call ids of built-in calls the host was sent a
            :class:`~harness_core.BuiltinApprovalRequest` for, in this turn or before it
            was continued (the core emitted their ``tool-call`` part).
        denied: ``{tool_use_id: reason}`` for built-in calls the host denied.
        refused: ``{tool_use_id: reason}`` for built-in calls the adapter refused without
            asking the host (a built-in outside the session's filter).
        host_calls: ``{tool_use_id: host tool name}`` for host calls surfaced as
            :class:`~harness_core.HostToolCall` (the core reports those itself).
        aliases: ``{runtime call id: original call id}`` for calls a continued turn
            re-ran under a new id (see ``docs/claude-code.md``).
        replayed: runtime call ids of calls the host already saw before a continuation
            (their ``tool-call`` part is not repeated).
        replaying: a continued turn is re-running its interrupted model request, so tool
            input streaming is not reported (the call may be a repeat).
        withheld_host_tools: the host's inactive host tools (never offered to the CLI); the
            CLI refuses a call to one itself, which is reported as ``tool-output-denied``.
    """

    host_server: str = HOST_SERVER
    withhold_calls: bool = False
    asked: set[str] = attrs.field(factory=set)
    denied: dict[str, str] = attrs.field(factory=dict)
    refused: dict[str, str] = attrs.field(factory=dict)
    host_calls: dict[str, str] = attrs.field(factory=dict)
    aliases: dict[str, str] = attrs.field(factory=dict)
    replayed: set[str] = attrs.field(factory=set)
    replaying: bool = False
    withheld_host_tools: frozenset[str] = frozenset()

    @property
    def host_prefix(self) -> str:
        """``mcp__<host_server>__``: the prefix of host tool names as Claude Code sees them."""
        return f"mcp__{self.host_server}__"

    def original_id(self, tool_use_id: str) -> str:
        """The call id the host knows for a runtime call id."""
        return self.aliases.get(tool_use_id, tool_use_id)

    def readonly(self) -> ReadOnlyTurnView:
        """A view whose mappings cannot be changed by the projection."""
        return ReadOnlyTurnView(self)


class ReadOnlyTurnView:
    """A read-only window on a :class:`TurnView` (live: later changes show through)."""

    def __init__(self, view: TurnView) -> None:
        self._view = view

    @property
    def host_server(self) -> str:
        """See :attr:`TurnView.host_server`."""
        return self._view.host_server

    @property
    def host_prefix(self) -> str:
        """See :attr:`TurnView.host_prefix`."""
        return self._view.host_prefix

    @property
    def withhold_calls(self) -> bool:
        """See :attr:`TurnView.withhold_calls`."""
        return self._view.withhold_calls

    def was_asked(self, tool_use_id: str) -> bool:
        """True when the host was asked about the built-in call ``tool_use_id`` (see :attr:`TurnView.asked`)."""
        return tool_use_id in self._view.asked

    def refusal(self, tool_use_id: str) -> str | None:
        """Why the adapter refused ``tool_use_id`` without asking the host, else ``None``."""
        return self._view.refused.get(tool_use_id)

    @property
    def denied(self) -> Mapping[str, str]:
        """See :attr:`TurnView.denied`."""
        return MappingProxyType(self._view.denied)

    @property
    def host_calls(self) -> Mapping[str, str]:
        """See :attr:`TurnView.host_calls`."""
        return MappingProxyType(self._view.host_calls)

    @property
    def replayed(self) -> frozenset[str]:
        """See :attr:`TurnView.replayed`."""
        return frozenset(self._view.replayed)

    @property
    def replaying(self) -> bool:
        """See :attr:`TurnView.replaying`."""
        return self._view.replaying

    @property
    def withheld_host_tools(self) -> frozenset[str]:
        """See :attr:`TurnView.withheld_host_tools`."""
        return self._view.withheld_host_tools

    def original_id(self, tool_use_id: str) -> str:
        """See :meth:`TurnView.original_id`."""
        return self._view.original_id(tool_use_id)


@attrs.frozen
class ClaudeCodeEvent:
    """One ``claude-agent-sdk`` message of a Claude Code turn.

    Attributes:
        message: the SDK message (``SystemMessage``, ``StreamEvent``, ``AssistantMessage``,
            ``UserMessage``, ``ResultMessage``...).
        view: the turn's bookkeeping, read-only; ``None`` outside a turn (tests).
    """

    message: object
    view: ReadOnlyTurnView | None = None
