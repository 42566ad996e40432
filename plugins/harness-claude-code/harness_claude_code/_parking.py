"""Control events held back until the assistant message announcing their call was yielded.

Claude Code's permission callback and MCP requests may reach the adapter a moment before
the assistant message that contains the call. The host must see that message first (its
projection closes the call's streamed input, so ``tool-input-end`` precedes the
``tool-call`` the core emits for the control event), so a control event whose call was
not announced yet is parked here; the turn releases it when the announcement arrives, or
after :data:`~._turn.PARK_SECONDS` in any case.
"""

from __future__ import annotations

from harness_core import BuiltinApprovalRequest, HostToolCall

__all__ = ["Control", "Parking"]

Control = BuiltinApprovalRequest | HostToolCall


class Parking:
    """Announced call ids and the control events waiting for theirs (by runtime call id)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._parked: list[tuple[str, Control]] = []

    def announced(self, call_id: str) -> None:
        """An assistant message announcing ``call_id`` is about to be yielded."""
        self._seen.add(call_id)

    def admit(self, call_id: str, control: Control) -> Control | None:
        """``control`` when its call was announced (yield it now), else ``None`` (parked)."""
        if call_id in self._seen:
            return control
        self._parked.append((call_id, control))
        return None

    def ready(self) -> list[Control]:
        """Take the parked events whose call has been announced since."""
        ready = [control for call_id, control in self._parked if call_id in self._seen]
        self._parked = [(call_id, control) for call_id, control in self._parked if call_id not in self._seen]
        return ready

    def release_all(self) -> list[Control]:
        """Take every parked event (the wait for their announcement ran out)."""
        released = [control for _, control in self._parked]
        self._parked = []
        return released

    def __bool__(self) -> bool:
        return bool(self._parked)
