"""Per-turn state of the Claude Code projection, kept in ``ProjectionContext.state``.

The projection is a function of one event and this state: which content blocks of the
current message are open (so deltas and ends find their part ids), which messages were
streamed (their complete copy is not repeated), the step's usage, the calls seen so far,
the denials Claude Code decided on its own, and the ``tool-call`` parts held back until a
call's result shows whether the host was asked about it.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from harness_core import ProjectionContext, ToolCallPart

from ._identity import ToolIdentity

__all__ = ["BlockKind", "ProjectionState"]

_KEY: Final = "claude-code.projection"

BlockKind = Literal["text", "thinking", "redacted_thinking", "tool_use", "host_tool_use"]


class ProjectionState:
    """What the projection remembers between events of one turn.

    Attributes:
        streamed_messages: ids of assistant messages whose content was streamed.
        message_id: the id of the message being streamed, or ``None``.
        blocks: ``{content block index: (kind, part id)}`` of the open blocks.
        step_usage: the streamed step's usage mapping (Anthropic keys).
        stop_reason: the streamed step's ``stop_reason``.
        calls: ``{runtime call id: (identity, input)}`` of every call seen.
        runtime_denials: ``{runtime call id: reason}`` for calls Claude Code refused.
        withheld: ``{runtime call id: tool-call part}`` held back under approvals.
    """

    def __init__(self) -> None:
        self.streamed_messages: set[str] = set()
        self.message_id: str | None = None
        self.blocks: dict[int, tuple[BlockKind, str]] = {}
        self.step_usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.calls: dict[str, tuple[ToolIdentity, Any]] = {}
        self.runtime_denials: dict[str, str] = {}
        self.withheld: dict[str, ToolCallPart] = {}

    @classmethod
    def of(cls, context: ProjectionContext) -> ProjectionState:
        """The state kept in ``context`` (created on first use)."""
        state = context.state.get(_KEY)
        if not isinstance(state, cls):
            state = cls()
            context.state[_KEY] = state
        return state

    def start_message(self, message_id: str, usage: dict[str, Any]) -> None:
        """A streamed message starts: no block is open, usage starts from ``usage``."""
        self.message_id = message_id
        self.streamed_messages.add(message_id)
        self.blocks = {}
        self.step_usage = usage
        self.stop_reason = None

    def close_tool_input(self, call_id: str) -> bool:
        """Forget the open ``tool_use`` block of ``call_id``; True if one was open."""
        index = next((i for i, (kind, pid) in self.blocks.items() if kind == "tool_use" and pid == call_id), None)
        if index is None:
            return False
        del self.blocks[index]
        return True
