"""Continuing a suspended Claude Code turn once the host has answered its calls.

When every call of a suspended turn got an answer that can be written down (a denial, or a
host tool result), the answers are appended to Claude Code's transcript as tool results
and the CLI resumes the session: **lossless**, no model request is repeated. An approved
built-in (only Claude Code can run it) or a call Claude Code had not asked about yet needs
a **re-run** of the interrupted model request; the turn then answers repeats of the stored
calls from their stored answers (see :meth:`~._turn.ClaudeCodeTurn.arm_replay`). Either
way the core already emitted the parts of the answers (``tool-output-denied``, host tool
results); the continued turn adds only what Claude Code does afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio

from ._state import DEFAULT_DENIAL, ApprovalAnswer, PendingCall, ResultAnswer
from ._transcript import LateResult, TranscriptError, append_results, find_transcript
from ._turn import ClaudeCodeTurn

__all__ = ["await_transcript", "late_result", "prepare_continuation"]


def late_result(call_id: str, call: PendingCall) -> LateResult:
    """The tool result written to the transcript for an answered call."""
    if isinstance(call.answer, ResultAnswer):
        return LateResult(call_id, call.answer.content, call.answer.is_error)
    reason = call.answer.reason if isinstance(call.answer, ApprovalAnswer) else None
    return LateResult(call_id, reason or DEFAULT_DENIAL, is_error=True)


def prepare_continuation(turn: ClaudeCodeTurn, config_dir: Path, claude_session_id: str) -> bool:
    """Record the answers of ``turn``'s restored calls; True when the continuation is lossless.

    Lossless: the answers were appended to the transcript of ``claude_session_id`` under
    ``config_dir``. Otherwise the turn is armed to answer repeats from the stored answers.
    """
    calls = turn.pending_calls()
    approved = [c for c in calls.values() if isinstance(c.answer, ApprovalAnswer) and c.answer.approved]
    unanswered = [c for c in calls.values() if c.answer is None]
    lossless = not approved and not unanswered
    if lossless:
        try:
            append_results(find_transcript(config_dir, claude_session_id),
                           [late_result(call_id, call) for call_id, call in calls.items()])
        except (TranscriptError, OSError):
            lossless = False
    if not lossless:
        turn.arm_replay(calls)
    return lossless


async def await_transcript(config_dir: Path, claude_session_id: str | None, call_ids: Sequence[str],
                           timeout: float = 2.0) -> None:
    """Give the CLI up to ``timeout`` seconds to write the calls ``call_ids`` to its transcript."""
    if not call_ids or claude_session_id is None:
        return
    with anyio.move_on_after(timeout):
        while True:
            try:
                text = find_transcript(config_dir, claude_session_id).read_text("utf-8")
            except (TranscriptError, OSError):
                text = ""
            if all(f'"{call_id}"' in text for call_id in call_ids):
                return
            await anyio.sleep(0.05)
