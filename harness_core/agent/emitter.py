"""The stream invariants of a result slice, kept in one place.

:class:`StreamEmitter` is the only way parts leave a slice. It keeps:

* steps balanced: a ``start-step`` opens each step (added when a part arrives outside one),
  a ``finish-step`` closes it, and step usage adds up to the slice's usage;
* **one step per continuation**: a continued slice opens no step of its own
  (:meth:`StreamEmitter.defer_first_step`); the runtime's ``finish-step`` closing the step
  that paused (nothing of it is shown again: the consumer supplied its results) is absorbed,
  its usage carried into the next step's ``finish-step``;
* **display paths**: with a ``display_root``, every tool part leaves with the workspace
  prefix stripped (:mod:`harness_core.agent.display`); only the consumer's copy changes;
* built-in parts under their harness-facing name, with
  ``provider_metadata[harness_id]["nativeToolName"]`` when the runtime's name differs;
* **one ``tool-call`` per call id and at most one final result per call, announced first.**
  A part that would break this is a *contract violation* (docs/adapters.md says who emits
  which part): it is not forwarded, so consumers always see a valid stream, and it is
  never dropped silently either: it is logged as an error and recorded in
  :attr:`StreamEmitter.violations` (and so in
  :attr:`~harness_core.agent.session.HarnessSession.contract_violations`), which the
  adapter conformance suite asserts to be empty.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from harness_core.agent.display import display_part
from harness_core.agent.turn_record import TurnRecord
from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
    with_native_tool_name,
)
from harness_core.tools.definition import BuiltinTool

__all__ = ["StreamEmitter", "is_final_result"]

logger = logging.getLogger("harness_core.contract")

_TOOL_PARTS = (ToolCallPart, ToolResultPart, ToolErrorPart, ToolOutputDeniedPart, ToolInputStartPart)
_LIFECYCLE = (StartPart, FinishPart, AbortPart, ErrorPart)
_NO_USAGE = Usage()
_PLAIN: frozenset[type[Part]] = frozenset({
    TextStartPart, TextDeltaPart, TextEndPart, ReasoningStartPart, ReasoningDeltaPart, ReasoningEndPart,
    ToolInputDeltaPart, ToolInputEndPart,
})
"""Part types (exactly: not subclasses) inside a step that :meth:`StreamEmitter.emit` only sends:
no tool name to normalize, no call to check, no step or lifecycle boundary."""


def is_final_result(part: Part) -> bool:
    """True for a call's final result: a non-preliminary ``tool-result``, ``tool-error`` or denial."""
    if isinstance(part, ToolResultPart):
        return not part.preliminary
    return isinstance(part, ToolErrorPart | ToolOutputDeniedPart)


class StreamEmitter:
    """Sends one slice's parts, keeping the invariants of the module docs.

    Args:
        send: the slice's part stream.
        harness_id: for ``nativeToolName`` metadata.
        builtins: the runtime's built-ins by harness-facing name.
        on_violation: called with each contract violation's message (the session records it).
        display_root: the workspace root stripped from display paths, or ``None`` (absolute).
        on_part: called with every part as it leaves (the turn's stop conditions watch them).
    """

    def __init__(self, send: MemoryObjectSendStream[Part], *, harness_id: str,
                 builtins: Mapping[str, BuiltinTool], on_violation: Callable[[str], None],
                 display_root: str | None = None, on_part: Callable[[Part], None] | None = None) -> None:
        self._send = send
        self._on_part = on_part
        self._display_root = display_root
        self._harness_id = harness_id
        self._by_name = dict(builtins)
        self._by_native = {b.native_name: b for b in builtins.values()}
        self._on_violation = on_violation
        self.turn: TurnRecord | None = None
        self.step_open = False
        self.usage = Usage()
        self.usage_reported = False
        self._deferred = False
        self._carry = Usage()

    def defer_first_step(self) -> None:
        """Open no step until a part shows something: the paused step's ``finish-step`` is absorbed."""
        self._deferred = True

    def violation(self, message: str) -> None:
        """Record a contract violation (logged as an error)."""
        logger.error("harness %r broke the adapter contract: %s", self._harness_id, message)
        self._on_violation(message)

    def emit(self, part: Part, *, source: str = "adapter") -> None:
        """Send ``part`` (see the module docs); ``source`` names who produced it, for violations."""
        if type(part) in _PLAIN:  # most parts (deltas): nothing to normalize or check
            if not self.step_open:
                self.step_open = True
                self._deferred = False
                self._put(StartStepPart())
            self._put(part)
            return
        part = self.normalize(part)
        if not self._tool_part_allowed(part, source):
            return
        if isinstance(part, StartStepPart):
            if self.step_open:
                return
            self.step_open = True
            self._deferred = False
        elif isinstance(part, FinishStepPart):
            if part.usage != _NO_USAGE:
                self.usage_reported = True
            self.usage = self.usage + part.usage
            if not self.step_open and self._deferred:
                self._carry = self._carry + part.usage
                return
            if self._carry != _NO_USAGE:
                part = part.model_copy(update={"usage": part.usage + self._carry})
                self._carry = Usage()
            if not self.step_open:
                self._put(StartStepPart())
            self.step_open = False
        elif not isinstance(part, _LIFECYCLE) and not self.step_open:
            self.step_open = True
            self._deferred = False
            self._put(StartStepPart())
        self._put(part)

    def _tool_part_allowed(self, part: Part, source: str) -> bool:
        turn = self.turn
        if turn is None:
            return True
        if isinstance(part, ToolCallPart):
            first = turn.announced.get(part.tool_call_id)
            if first is not None:
                self.violation(f"{source} emitted a second tool-call part for call {part.tool_call_id!r} "
                               f"({part.tool_name!r}); the first came from the {first}")
                return False
            turn.announced[part.tool_call_id] = source
        elif isinstance(part, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart):
            call_id = part.tool_call_id
            if call_id in turn.finished:
                self.violation(f"{source} emitted a {part.type} part for call {call_id!r} ({part.tool_name!r}), "
                               "which already has its final result")
                return False
            if call_id not in turn.announced:
                self.violation(f"{source} emitted a {part.type} part for call {call_id!r} ({part.tool_name!r}) "
                               "whose tool-call part is missing")
            if is_final_result(part):
                turn.finished.add(call_id)
        return True

    def _put(self, part: Part) -> None:
        # When nobody reads any more (the consumer went away), keep the session consistent.
        shown = display_part(part, self._display_root)
        if self._on_part is not None:
            self._on_part(shown)
        try:  # noqa: SIM105 - once per part: no contextlib.suppress object each time
            self._send.send_nowait(shown)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass

    def normalize(self, part: Part) -> Part:
        """Harness-facing names and ``nativeToolName`` for built-in tool parts from projections."""
        if not isinstance(part, _TOOL_PARTS):
            return part
        if not part.provider_executed or part.tool_name in self._by_name:
            name = part.tool_name
            native = self._by_name[name].native_name if name in self._by_name else None
        else:
            builtin = self._by_native.get(part.tool_name)
            if builtin is None:
                return part
            name, native = builtin.name, builtin.native_name
            part = part.model_copy(update={"tool_name": name})
        if isinstance(part, ToolCallPart) and part.provider_executed and native and native != name:
            metadata = with_native_tool_name(part.provider_metadata, self._harness_id, name, native)
            part = part.model_copy(update={"provider_metadata": metadata})
        return part

    def close_step(self, reason: FinishStepPart | None = None) -> None:
        """Close the open step with ``reason`` (a prepared ``finish-step``), if a step is open."""
        if self.step_open and reason is not None:
            self.emit(reason, source="core")

    def close(self) -> None:
        """End the slice's stream."""
        self._send.close()
