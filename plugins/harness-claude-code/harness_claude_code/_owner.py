"""What a Claude Code turn needs from its session (the process that runs it)."""

from __future__ import annotations

from typing import Protocol

from harness_core import BuiltinTool

__all__ = ["TurnOwner"]


class TurnOwner(Protocol):
    """What a turn needs from its session (the process that runs it)."""

    def note_claude_session(self, claude_session_id: str) -> None:
        """Record Claude Code's session id (from ``init`` or a result)."""
        ...

    def turn_cost(self, total_cost_usd: float | None) -> float | None:
        """This turn's cost in US dollars from the process's cumulative ``total_cost_usd``."""
        ...

    def runtime_failed(self, error: BaseException | None) -> str:
        """Record an unexpected CLI exit; returns the message describing it."""
        ...

    async def abort_runtime(self) -> None:
        """Interrupt the CLI and kill its process tree."""
        ...

    def mcp_declaration(self, native_name: str) -> BuiltinTool | None:
        """The declaration of an external MCP tool (kind from its annotations), else None."""

    async def send_user_message(self, text: str) -> None:
        """Write a user message to the running CLI's streaming input (steering)."""
        ...
