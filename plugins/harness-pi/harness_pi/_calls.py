"""Bookkeeping of one turn's calls: what waits for the host, what was answered, what a
continued turn replays.

A continued turn re-runs the interrupted step (see :mod:`harness_pi._session`); pi asks
again for the calls it repeats, and :class:`CallBook` answers them from the stored
answers: by call id, else by the same tool name and input (a real model's new ids).
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from harness_core import ToolCall

from ._state import Answer, OpenCall

__all__ = ["CallBook", "Pending", "dumps_input", "host_answer"]


def dumps_input(value: Any) -> str:
    """Canonical JSON of a call input (for matching repeated calls)."""
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)


@attrs.define
class Pending:
    """A request pi is blocked on; ``ui_id`` is ``None`` for one restored from state.

    ``request`` is the call as pi's extension sent it (``None`` when restored from state).
    """

    call_id: str
    ui_id: str | None
    request: ToolCall | None = None


@attrs.define
class CallBook:
    """The calls of one turn (see the module docs)."""

    open: dict[str, OpenCall] = attrs.field(factory=dict)
    approvals: dict[str, Pending] = attrs.field(factory=dict)
    host_waiters: dict[str, Pending] = attrs.field(factory=dict)
    replay: dict[str, Answer] = attrs.field(factory=dict)
    aliases: dict[str, str] = attrs.field(factory=dict)
    host_calls: set[str] = attrs.field(factory=set)
    silenced: set[str] = attrs.field(factory=set)
    shown: set[str] = attrs.field(factory=set)
    """Calls this turn projected as a ``tool-call`` itself (ungated calls pi runs)."""

    def original(self, call_id: str) -> str:
        """The id the host knows for ``call_id`` (a repeated call keeps the first id)."""
        return self.aliases.get(call_id, call_id)

    def note(self, call_id: str, call: OpenCall) -> None:
        """Remember an open call (kept until its result)."""
        self.open.setdefault(self.original(call_id), call)

    def closed(self, call_id: str) -> None:
        """The call ended (pi sent its result)."""
        self.open.pop(self.original(call_id), None)

    def record(self, call_id: str, answer: Answer) -> None:
        """Keep the host's answer on the open call (for suspension)."""
        call = self.open.get(call_id)
        if call is not None:
            call.answer = answer

    def take_replay(self, call_id: str, native_name: str, native_input: Any) -> Answer | None:
        """The stored answer for a repeated call, aliasing a new id to the original one."""
        if not self.replay:
            return None
        wanted = dumps_input(native_input)
        stored = self.open.get(call_id)
        if call_id in self.replay and stored is not None and stored.native_name == native_name \
                and dumps_input(stored.input) == wanted:
            return self.replay.pop(call_id)  # the same id naming another call is asked again, never replayed
        for original in list(self.replay):
            call = self.open.get(original)
            if call is not None and call.native_name == native_name and dumps_input(call.input) == wanted:
                self.aliases[call_id] = original
                return self.replay.pop(original)
        return None

    def restore(self, calls: dict[str, OpenCall]) -> None:
        """Adopt a suspended step's calls: answered ones replay, asked ones wait for answers."""
        for call_id, call in calls.items():
            self.open[call_id] = call.model_copy(deep=True)
            if call.answer is not None:
                self.replay[call_id] = call.answer
            elif call.asked and call.kind == "builtin":
                self.approvals[call.approval_id or f"approval-{call_id}"] = Pending(call_id, None)
            elif call.asked:
                self.host_waiters[call_id] = Pending(call_id, None)

    @property
    def waiting(self) -> bool:
        """True while pi waits for at least one host answer."""
        return any(p.ui_id is not None for p in [*self.approvals.values(), *self.host_waiters.values()])

    def outstanding_ui(self) -> list[str]:
        """Ids of the UI requests pi is blocked on."""
        return [p.ui_id for p in [*self.approvals.values(), *self.host_waiters.values()] if p.ui_id is not None]


def host_answer(answer: Answer) -> dict[str, Any]:
    """The ``harness-pi/v1:host`` answer: ``{"content", "isError"}`` plus ``items`` (pi
    content blocks) for a rich result."""
    value: dict[str, Any] = {"content": answer.content, "isError": answer.is_error}
    if answer.items is not None:
        value["items"] = answer.items
    return value
