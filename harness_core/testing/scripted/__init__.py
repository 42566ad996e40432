"""The scripted adapter: a fake runtime, in process, for testing the host side.

:class:`ScriptedAdapter` (``adapter``) plays a script of actions (``actions``); its
sessions (``session``) and turns (``turn``) behave like a real runtime's, emitting native
events (``native``) it projects itself, and running built-ins (``builtins``) for real.
"""

from __future__ import annotations

from harness_core.testing.scripted.actions import (
    Action,
    CallBuiltin,
    CallHost,
    ChangeFile,
    Compact,
    Crash,
    EchoResults,
    Fail,
    Say,
    ScriptedResult,
    Sleep,
    Step,
    StepContext,
    Think,
    Turn,
)
from harness_core.testing.scripted.adapter import ScriptedAdapter
from harness_core.testing.scripted.builtins import default_builtins
from harness_core.testing.scripted.native import (
    STEP_USAGE,
    NativeCompaction,
    NativeFileChange,
    NativeReasoning,
    NativeStepEnd,
    NativeText,
    NativeToolResult,
    NativeToolUse,
    project_scripted_event,
)
from harness_core.testing.scripted.session import ScriptedSession
from harness_core.testing.scripted.turn import ScriptedTurn

__all__ = [
    "STEP_USAGE",
    "Action",
    "CallBuiltin",
    "CallHost",
    "ChangeFile",
    "Compact",
    "Crash",
    "EchoResults",
    "Fail",
    "NativeCompaction",
    "NativeFileChange",
    "NativeReasoning",
    "NativeStepEnd",
    "NativeText",
    "NativeToolResult",
    "NativeToolUse",
    "Say",
    "ScriptedAdapter",
    "ScriptedResult",
    "ScriptedSession",
    "ScriptedTurn",
    "Sleep",
    "Step",
    "StepContext",
    "Think",
    "Turn",
    "default_builtins",
    "project_scripted_event",
]
