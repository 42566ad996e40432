"""Helpers for testing code that drives Claude Code through the adapter protocol.

:func:`drive` runs an :class:`~harness_core.AdapterTurn` without a
:class:`~harness_core.HarnessAgent`: it projects Claude Code's events into stream parts,
answers approval requests and host tool calls with the callables you give (or pauses on
them), and records everything in a :class:`TurnLog`. :func:`eventually` polls outside state
(files, processes) until a condition holds. :data:`CLI_MISSING_REASON` is ``None`` when a
Claude Code CLI is installed, else the reason to skip a test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import attrs

from harness_core import (
    BuiltinApprovalRequest,
    HostToolCall,
    Part,
    ProjectionContext,
    ToolOutput,
    TurnEnd,
)

from ._adapter import find_cli
from ._events import ClaudeCodeEvent
from ._projection import project

__all__ = ["CLI_MISSING_REASON", "TurnLog", "drive", "eventually"]

CLI_MISSING_REASON: str | None = (
    None if find_cli() is not None
    else "no Claude Code CLI: install claude-agent-sdk (its wheel bundles the CLI)"
)
"""``None`` when the adapter can find a Claude Code CLI, else why a test must skip."""


Decide = Callable[[Any], Any]


@attrs.define
class TurnLog:
    """What a driven turn produced: raw events, projected parts, the TurnEnd, the pause.

    Attributes:
        events: every event of the turn, as yielded (native events, parts, control events).
        parts: the adapter's parts: native events projected, and parts it yielded itself.
        timeline: the adapter's parts and control events interleaved, in stream order (what
            the core would see, before it adds its own parts).
        end: the :class:`TurnEnd`, once read.
        paused_on: the control event driving stopped at, when a decision was ``"pause"``.
    """

    events: list[object] = attrs.field(factory=list)
    parts: list[Part] = attrs.field(factory=list)
    timeline: list[object] = attrs.field(factory=list)
    end: TurnEnd | None = None
    paused_on: object | None = None

    def of_type(self, kind: str) -> list[Any]:
        """The parts of one ``type`` (``"tool-call"``...), in order."""
        return [part for part in self.parts if part.type == kind]

    @property
    def text(self) -> str:
        """All text deltas joined."""
        return "".join(part.text for part in self.of_type("text-delta"))


async def drive(
    turn: Any,
    *,
    approve: Decide | None = None,
    tool_result: Decide | None = None,
    context: ProjectionContext | None = None,
    log: TurnLog | None = None,
    on_event: Callable[[object], Any] | None = None,
) -> TurnLog:
    """Run ``turn`` through its events, projecting Claude Code events into parts.

    ``approve(request)`` returns ``True`` / ``False`` / ``(False, reason)`` or ``"pause"``;
    ``tool_result(call)`` returns a :class:`ToolOutput`, a string, or ``"pause"``. A pause
    stops driving (the turn stays open) and records the control event in ``paused_on``.
    """
    log = log or TurnLog()
    context = context or ProjectionContext(harness_id="claude-code")
    events: AsyncIterator[object] = turn.events()
    async for event in events:
        log.events.append(event)
        if on_event is not None:
            await on_event(event)
        if isinstance(event, ClaudeCodeEvent):
            projected = project(event, context)
            log.parts.extend(projected)
            log.timeline.extend(projected)
            continue
        log.timeline.append(event)
        if isinstance(event, Part):
            log.parts.append(event)
        elif isinstance(event, BuiltinApprovalRequest):
            decision = approve(event) if approve is not None else True
            if decision == "pause":
                log.paused_on = event
                return log
            approved, reason = decision if isinstance(decision, tuple) else (bool(decision), None)
            await turn.submit_approval(event.approval_id, approved, reason)
        elif isinstance(event, HostToolCall):
            output = tool_result(event) if tool_result is not None else ToolOutput("ok")
            if output == "pause":
                log.paused_on = event
                return log
            await turn.submit_tool_result(
                event.call.tool_call_id, output if isinstance(output, ToolOutput) else ToolOutput(str(output))
            )
        elif isinstance(event, TurnEnd):
            log.end = event
    return log


async def eventually(predicate: Callable[[], bool], *, timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``predicate`` (a quick, synchronous check of outside state) every 50 ms until it holds.

    Raises:
        TimeoutError: it did not hold within ``timeout`` seconds (the message names ``what``).
    """
    with anyio.move_on_after(timeout):
        while True:
            if predicate():
                return
            await anyio.sleep(0.05)
    raise TimeoutError(f"{what} did not hold within {timeout} s")
