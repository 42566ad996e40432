"""The scripted adapter's names, as they were importable before the ``scripted`` package.

Everything lives in :mod:`harness_core.testing.scripted` (one module per concept); this
module re-exports the same objects, so ``from harness_core.testing.scripted_adapter import
ScriptedAdapter`` and patches of ``ScriptedTurn`` attributes keep working.
"""

from __future__ import annotations

from harness_core.testing.scripted import (
    STEP_USAGE,
    Action,
    CallBuiltin,
    CallHost,
    ChangeFile,
    Compact,
    Crash,
    EchoResults,
    Fail,
    NativeCompaction,
    NativeFileChange,
    NativeReasoning,
    NativeStepEnd,
    NativeText,
    NativeToolResult,
    NativeToolUse,
    Say,
    ScriptedAdapter,
    ScriptedResult,
    ScriptedSession,
    ScriptedTurn,
    Sleep,
    Step,
    StepContext,
    Think,
    Turn,
    default_builtins,
    project_scripted_event,
)

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
