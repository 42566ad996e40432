"""The shape of a runtime resumer: what :class:`~harness_dbos.runtime_turn.RuntimeTurn`
needs from a runtime to rebuild a turn whose process died with its worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from harness_core import HarnessSession, ToolOutput

__all__ = ["RuntimeResumer"]


class RuntimeResumer(Protocol):
    """Rebuilds a crashed turn of one runtime from the runtime's own persisted session.

    Implementations: :class:`~harness_dbos.claude_code_resume.ClaudeCodeResume` (transcript),
    :class:`~harness_dbos.codex_resume.CodexResume` (thread rollout).
    """

    harness_id: str

    def runtime_session(self, session: HarnessSession) -> dict[str, Any] | None:
        """What to record once the runtime reported its session (JSON), else ``None``."""
        ...

    def continue_state(self, *, session_id: str, runtime: Mapping[str, Any], pause: Mapping[str, Any] | None,
                       outcomes: Mapping[str, ToolOutput], started: set[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The suspended-turn state to continue from and the host results answering it,
        or ``None`` when the persisted session holds no open call."""
        ...

    def holds_prompt(self, runtime: Mapping[str, Any], prompt: str) -> bool:
        """Whether the persisted session's last user message is ``prompt``."""
        ...

    def resume_state(self, *, session_id: str, runtime: Mapping[str, Any]) -> dict[str, Any]:
        """The stopped-session state resuming the runtime's session."""
        ...
