"""What a built-in turn runs with: the model client, the workspace and the limits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

import attrs

from harness_core import BuiltinExecutionContext, Sandbox, ToolCall, ToolOutput

from .models.base import ModelClient
from .settings import ToolSettings, TurnLimits
from .workspace import Workspace

__all__ = ["HARNESS_ID", "TurnEnvironment"]

HARNESS_ID: Final = "builtin"


@attrs.frozen(kw_only=True)
class TurnEnvironment:
    """The fixed setting of a session's turns.

    Attributes:
        session_id: the session's id (given to tool contexts).
        client: the model client.
        sandbox: the workspace sandbox the built-in tools run in.
        workspace: the built-in tools' view of it.
        limits: the turn limits (steps, tokens, tool calls, repairs, deadlines).
        tool_settings: the built-in tools' bounds.
        detect_file_changes: whether a ``bash`` call's file changes are reported.
        builtin_approvals: whether built-in calls are sent to the core for approval.
        execute_builtin: the core's ``harness_execute_builtin`` hook
            (``StartRequest.execute_builtin``) each execution goes through; ``None``
            runs them directly.
    """

    session_id: str
    client: ModelClient
    sandbox: Sandbox
    workspace: Workspace
    limits: TurnLimits
    tool_settings: ToolSettings
    detect_file_changes: bool
    builtin_approvals: bool
    execute_builtin: Callable[[ToolCall, BuiltinExecutionContext], Awaitable[ToolOutput]] | None = None
