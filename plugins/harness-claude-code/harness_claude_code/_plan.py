"""Plan mode on Claude Code: the ``plan`` permission mode, enforced by the adapter too.

``PromptRequest.mode == "plan"`` starts the CLI in Claude Code's ``plan`` permission mode
(its planning instructions) with the permission callback wired even when the host needs
no approvals. Claude Code itself does not refuse edits in that mode when no permission
prompt would be shown (measured: CLI 2.1.332 ran ``Write`` and ``Bash`` in ``plan`` mode),
so the callback refuses, fail closed, every call that is not a read-only built-in
(edits, shell commands, undeclared and MCP tools) and ``ExitPlanMode`` (the turn stays a
plan; the plan is the answer). Read-only built-ins are decided as usual (allowed at once
when the session needs no approvals).
"""

from __future__ import annotations

from typing import Final

from harness_core import BuiltinTool

__all__ = ["EXIT_PLAN_MODE", "plan_refusal"]

EXIT_PLAN_MODE: Final = "ExitPlanMode"


def plan_refusal(native_name: str, builtin: BuiltinTool | None) -> str | None:
    """Why plan mode refuses the built-in call ``native_name``, or ``None`` when it may run."""
    if native_name == EXIT_PLAN_MODE:
        return "Plan mode stays on for this turn: give the plan as your answer, without ExitPlanMode."
    if builtin is not None and builtin.read_only:
        return None
    label = builtin.name if builtin is not None else native_name
    return f"Plan mode: only read-only tools may run, so {label!r} was refused. Describe the change in the plan instead."
