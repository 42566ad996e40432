"""How ``harness run`` answers approval requests (``--approve ask|allow|deny``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from harness_core.cli.run_output import Renderer
from harness_core.parts.models import ToolApprovalRequestPart

__all__ = ["NO_TTY_REASON", "Approver"]

NO_TTY_REASON: Final = (
    "harness run --approve ask has no terminal to ask on; rerun with --approve allow to allow this call"
)


class Approver:
    """Answers approval requests per ``--approve``; remembers "always" per tool.

    Args:
        mode: ``"ask"``, ``"allow"`` or ``"deny"``.
        renderer: shows the prompt and notes.
        interactive: there is a terminal to ask on (``ask`` without one denies).
        ask: reads one answer line after showing its prompt.
    """

    def __init__(self, mode: str, renderer: Renderer, *, interactive: bool,
                 ask: Callable[[str], Awaitable[str]]) -> None:
        self.mode = mode
        self.ask = ask
        self.renderer = renderer
        self.interactive = interactive
        self.always: set[str] = set()
        self.warned = False

    async def decide(self, part: ToolApprovalRequestPart) -> tuple[bool, str | None]:
        """``(approved, reason)`` for one request; the reason is what the model sees on a denial."""
        name = part.tool_call.tool_name
        if self.mode == "allow":
            return True, None
        if self.mode == "deny":
            return False, "denied by harness run --approve deny"
        if name in self.always:
            return True, None
        self.renderer.approval_prompt(part)
        if not self.interactive:
            if not self.warned:
                self.renderer.note("no terminal to ask for approval: denying (use --approve allow to allow)")
                self.warned = True
            return False, NO_TTY_REASON
        while True:
            answer = (await self.ask("  approve? [y]es / [n]o / [a]lways for this tool: ")).strip().lower()
            if answer in ("y", "yes"):
                return True, None
            if answer in ("a", "always"):
                self.always.add(name)
                return True, None
            if answer in ("n", "no", ""):
                return False, "denied by the user"
