"""Which harnesses a :class:`~harness_dbos.DurableAgent` can make durable, and how.

* ``builtin``: every model request and host tool is a positional DBOS step
  (:class:`~harness_dbos.DurableAgent` itself);
* ``claude-code``: a runtime with its own process, resumed from its own transcript after a
  crash (:mod:`harness_dbos.runtime_turn`, :mod:`harness_dbos.claude_code_resume`);
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
    "codex": "Codex keeps threads (app-server thread/resume), but harness-dbos does not yet rebuild a crashed "
             "Codex turn: a thread resumed after its process died has no way to receive the recorded host-tool "
             "results of its interrupted turn, so the turn would be re-run from its prompt",
    "pi": "pi keeps session files, but harness-dbos does not yet rebuild a crashed pi turn from one: the "
          "recorded host-tool results of the interrupted turn cannot be replayed into it, so the turn would be "
          "re-run from its prompt",
    "acp": "ACP has no common way to resume an agent's interrupted turn (session/load is optional and replays "
           "history only), so the turn would be re-run from its prompt",
}
"""Why each runtime harness without resume support is refused."""


def runtime_turn(agent: HarnessAgent, *, claims: Callable[[], ContinuationStore], records: Callable[[], RuntimeRecords],
                 answer_wait: float, publish_interval: float, allow_unrecorded_runtime: bool) -> RuntimeTurn | None:
    """The runtime-turn driver for ``agent``: ``None`` for the built-in harness (and for a
    harness accepted with ``allow_unrecorded_runtime``), a :class:`RuntimeTurn` for Claude Code.

    Raises:
        HarnessConfigurationError: another harness without ``allow_unrecorded_runtime``.
    """
    harness_id = agent.harness_id
    if harness_id == "builtin":
        return None
    if harness_id == "claude-code":
        from .claude_code_resume import ClaudeCodeResume

        return RuntimeTurn(agent, ClaudeCodeResume(agent), claims=claims, records=records,
                           answer_wait=answer_wait, publish_interval=publish_interval)
    if allow_unrecorded_runtime:
        return None
    reason = NOT_RESUMABLE.get(harness_id, f"harness {harness_id!r} runs its own model loop, which harness-dbos cannot record "
               "or resume, so a recovered turn would run its prompt again")
    raise HarnessConfigurationError(
        f"DurableAgent: harness {harness_id!r} cannot be made durable: {reason} (host tools would stay steps). "
        "Pass allow_unrecorded_runtime=True to accept that; see docs/dbos.md"
    )
