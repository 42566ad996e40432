"""harness-dbos: durable harness-core turns on DBOS Transact.

A turn is a DBOS workflow; model requests (through :func:`durable_model`) and host-tool
executions are recorded steps; approvals and client-side results arrive as DBOS messages;
parts are published to a DBOS stream any process can read from any offset. See
docs/durable.md.
"""

from __future__ import annotations

from .client import DurableClient
from .durable_agent import DurableAgent
from .launch import DATABASE_ENV, database_url, destroy, launch
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
