"""A session of the scripted runtime: starts turns, suspends and resumes them, compacts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness_core.adapter import PromptRequest, StartRequest
from harness_core.errors import HarnessCapabilityUnsupportedError, TurnStateError
from harness_core.testing.scripted.turn import ScriptedTurn

if TYPE_CHECKING:
    from harness_core.testing.scripted.adapter import ScriptedAdapter

__all__ = ["ScriptedSession"]


class ScriptedSession:
    """A session of the scripted runtime."""

    def __init__(self, adapter: ScriptedAdapter, request: StartRequest, next_turn: int) -> None:
        self.adapter = adapter
        self.request = request
        self.next_turn = next_turn
        self.current: ScriptedTurn | None = None
        self.destroyed = False
        self.compactions = 0
        workspace = adapter.workspace_for(request)
        self.workspace_root: str | None = str(workspace.resolve()) if workspace is not None else None
        """Where built-ins run (the optional ``AdapterSession.workspace_root`` for display paths)."""

    def _check(self) -> None:
        if self.destroyed:
            raise TurnStateError("scripted session was destroyed")

    async def prompt(self, request: PromptRequest) -> ScriptedTurn:
        """Start the next scripted turn."""
        self._check()
        self.adapter.prompts.append(request)
        turn = ScriptedTurn(self, turn_index=self.next_turn, prompt=request.prompt,
                            host_tools=tuple(spec.name for spec in request.host_tools))
        self.next_turn += 1
        self.current = turn
        return turn

    async def resume_turn(self) -> ScriptedTurn:
        """The turn restored from ``StartRequest.continue_from``."""
        self._check()
        state = self.request.continue_from
        if state is None:
            raise TurnStateError("scripted session has no continue_from state to resume")
        turn = ScriptedTurn.restore(self, state["turn"])
        self.current = turn
        return turn

    async def suspend_turn(self) -> dict[str, Any]:
        """JSON state of the current turn (it waits for answers)."""
        self._check()
        if not self.adapter.supports_suspend:
            raise HarnessCapabilityUnsupportedError(self.adapter.harness_id, "suspending a turn")
        if self.current is None:
            raise TurnStateError("scripted session has no turn to suspend")
        state = {"turn": self.current.snapshot()}
        self.current.detached = True
        self.current = None
        return state

    async def stop(self) -> dict[str, Any]:
        """State for ``resume_from``: the next turn to play."""
        self._check()
        return {"next_turn": self.next_turn}

    async def destroy(self) -> None:
        """Kill running commands. Idempotent."""
        if self.current is not None:
            await self.current.abort()
        self.destroyed = True

    async def compact(self) -> ScriptedTurn:
        """A turn that only compacts."""
        self._check()
        if not self.adapter.supports_compaction:
            raise HarnessCapabilityUnsupportedError(self.adapter.harness_id, "compaction")
        self.compactions += 1
        turn = ScriptedTurn(self, turn_index=-1, prompt="", host_tools=(), compaction=True)
        return turn
