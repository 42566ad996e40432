"""The calls of one Claude Code turn: which are open, what the host answered, what repeats.

A :class:`CallLedger` keeps

* the **open calls**: every top-level call Claude Code announced whose result it has not
  recorded yet, with the host's answer once given (:meth:`CallLedger.pending` is what a
  suspended turn stores);
* the **replay**: when a suspended turn is continued by re-running its interrupted model
  request, the stored calls, so that a repeat (same id, or same tool and input under a
  new id) is answered from the stored answer instead of asking the host twice;
* the turn's :class:`~._events.TurnView`, which tells the projection which built-in calls
  the host was asked about, which it denied, and which runtime ids alias earlier calls.
"""

from __future__ import annotations

from typing import Any, Literal

from harness_core import Part, ToolErrorPart

from ._events import TurnView
from ._identity import dumps_input, identify_tool
from ._state import ApprovalAnswer, PendingCall, ResultAnswer

__all__ = ["NOT_REPEATED", "CallLedger"]

NOT_REPEATED = "Claude Code did not repeat this call when the suspended turn was continued; it never ran."
"""The error of an approved built-in call a continued turn did not run again."""

Answer = ApprovalAnswer | ResultAnswer


class CallLedger:
    """The open and replayed calls of a turn (see the module docstring).

    Args:
        view: the turn's view, updated as calls are asked, answered and repeated.
        default_denial: the reason recorded for a denial given without one.
    """

    def __init__(self, view: TurnView, default_denial: str) -> None:
        self._view = view
        self._default_denial = default_denial
        self._open: dict[str, PendingCall] = {}
        self._replay: dict[str, PendingCall] = {}

    # -- open calls ---------------------------------------------------------------------

    def pending(self) -> dict[str, PendingCall]:
        """Calls without a recorded result, with any answer already given (deep copies)."""
        return {call_id: call.model_copy(deep=True) for call_id, call in self._open.items()}

    def restore(self, calls: dict[str, PendingCall]) -> None:
        """Adopt the open calls of a suspended turn (and the host's knowledge of them)."""
        self._open = {call_id: call.model_copy(deep=True) for call_id, call in calls.items()}
        self._view.asked.update(i for i, call in calls.items() if call.kind == "builtin" and call.asked)

    def announced(self, call_id: str, native_name: str, native_input: Any) -> None:
        """Claude Code announced a top-level call (a ``tool_use`` block of the main agent)."""
        if call_id not in self._open:
            identity = identify_tool(native_name, self._view.host_prefix)
            self._open[call_id] = PendingCall(
                kind="host" if identity.host else "builtin", native_name=native_name,
                tool_name=identity.tool_name if identity.host else None, input=native_input,
            )
        if self._replay:
            self._adopt_repeat(call_id, native_name, native_input)

    def resolve(self, tool_use_id: str | None, native_name: str, native_input: Any) -> str | None:
        """``tool_use_id``, or when the runtime gave none, the announced call not yet asked about
        with this tool and input (``None`` when there is none)."""
        if tool_use_id:
            return tool_use_id
        wanted = dumps_input(native_input)
        for call_id, call in self._open.items():
            if not call.asked and call.native_name == native_name and dumps_input(call.input) == wanted:
                return call_id
        return None

    def finished(self, call_id: str) -> None:
        """Claude Code recorded the call's result."""
        self._open.pop(call_id, None)

    def asked(self, call_id: str, kind: Literal["builtin", "host"], native_name: str, tool_name: str | None,
              native_input: Any, approval_id: str | None = None) -> None:
        """The host is being asked about the call (approval request or host tool call)."""
        call = self._open.get(call_id)
        if call is None:
            call = self._open[call_id] = PendingCall(
                kind=kind, native_name=native_name, tool_name=tool_name, input=native_input
            )
        call.kind, call.tool_name, call.asked = kind, tool_name, True
        if approval_id is not None:
            call.approval_id = approval_id
        if kind == "builtin":
            self._view.asked.add(call_id)
        else:
            self.hosted(call_id, tool_name or "")

    def hosted(self, call_id: str, tool_name: str) -> None:
        """The host handles the host tool call ``call_id`` (the core reports its parts)."""
        self._view.host_calls[call_id] = tool_name

    def answered(self, call_id: str, answer: Answer) -> None:
        """Keep the host's answer on the open call; a denial also goes to the view."""
        if isinstance(answer, ApprovalAnswer) and not answer.approved:
            self._view.denied[call_id] = answer.reason or self._default_denial
        call = self._open.get(call_id)
        if call is not None:
            call.answer = answer

    # -- replay -------------------------------------------------------------------------

    def arm_replay(self, calls: dict[str, PendingCall]) -> None:
        """Continue by re-running: answer repeats of ``calls`` from their stored answers."""
        self._replay = dict(calls)
        self._view.replaying = bool(calls)

    def take_replay(self, call_id: str, native_name: str, native_input: Any) -> Answer | None:
        """The stored answer for a repeat of a stored call, or ``None`` (ask the host)."""
        if not self._replay:
            return None
        original = self._view.original_id(call_id)
        entry = self._replay.get(original)
        if entry is not None and not self._same(entry, native_name, native_input):
            return None  # the same id now names another call: never reuse the answer (ask the host)
        entry = self._replay.pop(original, None)
        if entry is None:
            entry_id = self._match(native_name, native_input)
            if entry_id is None:
                return None
            entry = self._replay.pop(entry_id)
            self._view.aliases[call_id] = entry_id
        self._view.replayed.add(call_id)
        self._view.replaying = bool(self._replay)
        if entry.kind == "builtin" and entry.asked:
            self._view.asked.add(call_id)
        if entry.answer is not None:
            self.answered(call_id, entry.answer)
        return entry.answer

    @staticmethod
    def _same(call: PendingCall, native_name: str, native_input: Any) -> bool:
        return call.native_name == native_name and dumps_input(call.input) == dumps_input(native_input)

    def _match(self, native_name: str, native_input: Any) -> str | None:
        wanted = dumps_input(native_input)
        for call_id, call in self._replay.items():
            if call.native_name == native_name and dumps_input(call.input) == wanted:
                return call_id
        return None

    def _adopt_repeat(self, call_id: str, native_name: str, native_input: Any) -> None:
        same = call_id in self._replay and self._same(self._replay[call_id], native_name, native_input)
        original = call_id if same else self._match(native_name, native_input)
        if original is None:
            return
        if original != call_id:
            self._view.aliases[call_id] = original
        self._view.replayed.add(call_id)
        stored = self._replay[original]
        if stored.kind == "builtin" and stored.asked:
            self._view.asked.add(call_id)

    def unrepeated_parts(self) -> list[Part]:
        """End the replay; the final ``tool-error`` of approved built-ins that never re-ran.

        A denied call already has its ``tool-output-denied`` (from the core), a host call
        its result (from the core), and a call the host was never asked about has no part
        at all, so those need nothing.
        """
        parts: list[Part] = []
        for call_id, call in self._replay.items():
            approved = isinstance(call.answer, ApprovalAnswer) and call.answer.approved
            if call.kind == "builtin" and call.asked and approved:
                identity = identify_tool(call.native_name, self._view.host_prefix)
                parts.append(ToolErrorPart(
                    tool_call_id=call_id, tool_name=identity.tool_name, input=call.input, error=NOT_REPEATED,
                    provider_executed=True, provider_metadata=identity.metadata(),
                ))
        self._replay.clear()
        self._view.replaying = False
        return parts
