"""Plan mode on Claude Code: the ``plan`` permission mode, enforced by the adapter too.

``PromptRequest.mode == "plan"`` starts the CLI in Claude Code's ``plan`` permission mode
(its planning instructions) with the permission callback wired even when the host needs
no approvals. Claude Code itself does not refuse edits in that mode when no permission
prompt would be shown (measured: CLI 2.1.332 ran ``Write`` and ``Bash`` in ``plan`` mode),
so the callback refuses, fail closed, every call that is not read-only and
``ExitPlanMode`` (the turn stays a plan; the plan is the answer). Read-only is the built-in
harness's plan-mode rule: a built-in of the read-only kind, an external MCP tool its server
marks ``readOnlyHint``, a host tool defined with ``read_only=True``; the others (edits,
shell commands, undeclared tools) are refused. Read-only built-ins and MCP tools are
decided as usual (allowed at once when the session needs no approvals); read-only host
tools run (the core decides their approval), and the session offers only those in plan
mode, as the built-in harness does.
"""

from __future__ import annotations

from typing import Final

from harness_core import BuiltinTool

__all__ = ["EXIT_PLAN_MODE", "plan_refusal"]

EXIT_PLAN_MODE: Final = "ExitPlanMode"


def plan_refusal(native_name: str, builtin: BuiltinTool | None, *, host_read_only: bool = False) -> str | None:
    """Why plan mode refuses the call ``native_name``, or ``None`` when it may run.

    Args:
        native_name: Claude Code's name of the tool.
        builtin: its declaration (a built-in, or an external MCP tool), or ``None``.
        host_read_only: ``native_name`` is a host tool defined with ``read_only=True``.
    """
    if native_name == EXIT_PLAN_MODE:
        return "Plan mode stays on for this turn: give the plan as your answer, without ExitPlanMode."
    if host_read_only or (builtin is not None and builtin.read_only):
        return None
    label = builtin.name if builtin is not None else native_name
    return f"Plan mode: only read-only tools may run, so {label!r} was refused. Describe the change in the plan instead."
