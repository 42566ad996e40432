"""harness-dbos: durable harness-core turns on DBOS Transact.

A turn is a DBOS workflow; model requests (through :func:`durable_model`) and host-tool
executions are recorded steps; approvals and client-side results arrive as DBOS messages;
parts are published to a DBOS stream any process can read from any offset. See
docs/durable.md. Claude Code, Codex and pi turns (runtimes with their own process) run as
slices and are resumed from the runtime's own session after a crash
(:mod:`harness_dbos.runtime_turn`, docs/durable-runtimes.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

# Imported now, not lazily: the function ``launch`` shares its name with the submodule
# ``harness_dbos.launch``, and importing that submodule later (the worker command does)
# would bind the package attribute to the module instead of the function.
from .launch import DATABASE_ENV, database_url, destroy, launch

if TYPE_CHECKING:
    from .client import DurableClient
    from .durable_agent import DurableAgent
    from .messages import ANSWERS_TOPIC, STATUS_EVENT, answers_message
    from .model import DurableModelClient, durable_model
    from .publish import PARTS_STREAM
    from .tool_step import INTERRUPTED

__all__ = [
    "ANSWERS_TOPIC",
    "DATABASE_ENV",
    "INTERRUPTED",
    "PARTS_STREAM",
    "STATUS_EVENT",
    "DurableAgent",
    "DurableClient",
    "DurableModelClient",
    "answers_message",
    "database_url",
    "destroy",
    "durable_model",
    "launch",
]

_LAZY: dict[str, str] = {
    "DurableClient": ".client",
    "DurableAgent": ".durable_agent",
    "ANSWERS_TOPIC": ".messages",
    "STATUS_EVENT": ".messages",
    "answers_message": ".messages",
    "DurableModelClient": ".model",
    "durable_model": ".model",
    "PARTS_STREAM": ".publish",
    "INTERRUPTED": ".tool_step",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_dbos.plugin` through this package and must not pay for the durable agent (and
with it the core's agent) or DBOS."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
