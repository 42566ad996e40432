"""The durable turn a task runs in, if any (a context variable; imports no DBOS).

:data:`current_turn` is set by :class:`~harness_dbos.DurableAgent` for the duration of a
turn workflow. The host-tool step wrapper (:mod:`harness_dbos.plugin`) and the model
client wrapper (:class:`~harness_dbos.DurableModelClient`) look at it: unset, they pass
calls straight through, so an agent used outside a durable turn behaves as without this
plugin, and importing the plugin never imports DBOS.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from harness_core import ContinuationStore

if TYPE_CHECKING:
    from .runtime_records import RuntimeRecords

__all__ = ["TurnRuntime", "current_turn"]


@attrs.frozen
class TurnRuntime:
    """What the steps of one running turn workflow need.

    Attributes:
        workflow_id: the DBOS workflow id of the turn.
        claims: the store that marks a host-tool execution as started (at most one start
            per step, across every worker sharing it).
        records: set for a runtime that owns its loop (Claude Code): host-tool executions
            are recorded by call id there (:mod:`harness_dbos.runtime_tool`) instead of
            as positional steps.
        tool_records: set for a built-in harness turn on SQLite: its host-tool and
            built-in executions are recorded by call id there (:mod:`harness_dbos.inline_tool`)
            instead of as positional DBOS steps.
        executions: how many executions of each ``kind\0call id`` this execution of the
            workflow has started (see :meth:`occurrence`).
    """

    workflow_id: str
    claims: ContinuationStore
    records: RuntimeRecords | None = None
    tool_records: RuntimeRecords | None = None
    executions: dict[str, int] = attrs.field(factory=dict, eq=False, repr=False)

    def occurrence(self, name: str) -> int:
        """The number of earlier executions of ``name`` in this run of the workflow (0 the
        first time; a replay counts the same way, since it takes the same path)."""
        count = self.executions.get(name, 0)
        self.executions[name] = count + 1
        return count


current_turn: ContextVar[TurnRuntime | None] = ContextVar("harness_dbos_current_turn", default=None)
"""The running durable turn of this task (copied into the tasks and threads it starts)."""
