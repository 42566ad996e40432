"""Hook implementations of harness-rules, registered through the ``harness`` entry point.

The entry-point plugin (name ``rules``) decides every call with the user, project and local
rules files of the call's workspace root (see :class:`~harness_rules.RulesPolicy` with
``discover=True``) and adds the ``harness rules`` command group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness_core import ApprovalContext, ApprovalDecision, ToolCall, hookimpl

from ._policy import RulesPolicy

if TYPE_CHECKING:
    import click

__all__ = ["DEFAULT_POLICY", "harness_approve_call", "harness_cli_commands"]

DEFAULT_POLICY = RulesPolicy(discover=True)
"""The policy behind the entry point: discovered files only, relative to each call's root."""


@hookimpl
def harness_approve_call(call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
    """Decide ``call`` with the discovered rules files (``None`` when no rule matches)."""
    return DEFAULT_POLICY.harness_approve_call(call, context)


@hookimpl
def harness_cli_commands() -> Sequence[click.Command]:
    """The ``harness rules`` command group (``check``, ``list``)."""
    from .cli import rules

    return [rules]
