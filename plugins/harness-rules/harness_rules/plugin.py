"""Hook implementations of harness-rules, registered through the ``harness`` entry point.

The entry-point plugin (name ``rules``) decides every call with the user, project and local
rules files of the call's workspace root (see :class:`~harness_rules.RulesPolicy` with
``discover=True``) and adds the ``harness rules`` command group.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from harness_core import ApprovalContext, ApprovalDecision, ToolCall, hookimpl

if TYPE_CHECKING:
    from ._policy import RulesPolicy

    DEFAULT_POLICY: RulesPolicy
    """The policy behind the entry point (see :func:`default_policy`)."""

__all__ = ["DEFAULT_POLICY", "default_policy", "harness_approve_call", "harness_cli_commands"]

_POLICY: list[RulesPolicy] = []
_POLICY_LOCK = threading.Lock()


def default_policy() -> RulesPolicy:
    """The policy behind the entry point (``DEFAULT_POLICY``): discovered files only, relative
    to each call's root. Built on the first call, so plugin discovery never imports the rule
    engine."""
    if not _POLICY:
        with _POLICY_LOCK:
            if not _POLICY:
                from ._policy import RulesPolicy

                _POLICY.append(RulesPolicy(discover=True))
    return _POLICY[0]


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_POLICY":
        return default_policy()
    raise AttributeError(f"module 'harness_rules.plugin' has no attribute {name!r}")


@hookimpl
def harness_approve_call(call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
    """Decide ``call`` with the discovered rules files (``None`` when no rule matches)."""
    return default_policy().harness_approve_call(call, context)


@hookimpl
def harness_cli_commands() -> Sequence[click.Command]:
    """The ``harness rules`` command group (``check``, ``list``), as a :class:`LazyRulesGroup`."""
    return [LazyRulesGroup()]


class LazyRulesGroup(click.Group):
    """``harness rules`` without its module: :mod:`harness_rules.cli` (and with it the rule
    engine and bashlex) is imported only when the group is listed, helped or invoked, not
    when plugin discovery collects the commands."""

    def __init__(self) -> None:
        super().__init__(name="rules", help="Check calls against permission rules and list the rules in force.")

    @staticmethod
    def _real() -> click.Group:
        from .cli import rules

        return rules

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._real().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._real().get_command(ctx, cmd_name)
