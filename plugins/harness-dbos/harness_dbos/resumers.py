"""Which harnesses a :class:`~harness_dbos.DurableAgent` can make durable, and how.

* ``builtin``: every model request and host tool is a positional DBOS step
  (:class:`~harness_dbos.DurableAgent` itself);
* ``claude-code``, ``codex`` and ``pi``: runtimes with their own process, resumed after a
  crash from their own persisted session (:mod:`harness_dbos.runtime_turn`; Claude Code's
  transcript, :mod:`harness_dbos.claude_code_resume`; Codex's thread rollout,
  :mod:`harness_dbos.codex_resume`; pi's session file, :mod:`harness_dbos.pi_resume`);
* every other harness is refused (fail closed) with the reason it cannot be resumed,
  unless ``allow_unrecorded_runtime=True`` accepts re-running its prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from harness_core import ContinuationStore, HarnessAgent, HarnessConfigurationError

from .runtime_records import RuntimeRecords
from .runtime_turn import RuntimeTurn

__all__ = ["NOT_RESUMABLE", "runtime_turn"]

NOT_RESUMABLE: Final = {
    "acp": "ACP has no common way to resume an agent's interrupted turn (session/load is optional and the "
           "agent process holds the pending request), so a recovered turn would send its prompt again",
}
"""Why each runtime harness without resume support is refused."""


def runtime_turn(agent: HarnessAgent, *, claims: Callable[[], ContinuationStore], records: Callable[[], RuntimeRecords],
                 answer_wait: float, publish_interval: float, allow_unrecorded_runtime: bool) -> RuntimeTurn | None:
    """The runtime-turn driver for ``agent``: ``None`` for the built-in harness (and for a
    harness accepted with ``allow_unrecorded_runtime``), a :class:`RuntimeTurn` for Claude Code,
    Codex and pi.

    Raises:
        HarnessConfigurationError: another harness without ``allow_unrecorded_runtime``; a
            Codex adapter without a durable ``codex_home`` / ``home``.
    """
    harness_id = agent.harness_id
    if harness_id == "builtin":
        return None
    if harness_id == "claude-code":
        from .claude_code_resume import ClaudeCodeResume

        return RuntimeTurn(agent, ClaudeCodeResume(agent), claims=claims, records=records,
                           answer_wait=answer_wait, publish_interval=publish_interval)
    if harness_id == "codex":
        from .codex_resume import CodexResume

        return RuntimeTurn(agent, CodexResume(agent), claims=claims, records=records,
                           answer_wait=answer_wait, publish_interval=publish_interval)
    if harness_id == "pi":
        from .pi_resume import PiResume

        return RuntimeTurn(agent, PiResume(agent), claims=claims, records=records,
                           answer_wait=answer_wait, publish_interval=publish_interval)
    if allow_unrecorded_runtime:
        return None
    reason = NOT_RESUMABLE.get(harness_id, f"harness {harness_id!r} runs its own model loop, which harness-dbos cannot record "
               "or resume, so a recovered turn would run its prompt again")
    raise HarnessConfigurationError(
        f"DurableAgent: harness {harness_id!r} cannot be made durable: {reason} (host tools would stay steps). "
        "Pass allow_unrecorded_runtime=True to accept that; see docs/durable.md"
    )
