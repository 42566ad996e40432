"""The script of a :class:`~harness_core.testing.ScriptedAdapter`: actions, steps and turns.

A turn is a list of steps; a step is a list of actions, or a function of the previous
step's results (:class:`StepContext`) returning one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

import attrs

__all__ = [
    "Action",
    "CallBuiltin",
    "CallHost",
    "ChangeFile",
    "Compact",
    "Crash",
    "EchoResults",
    "Fail",
    "Say",
    "ScriptedResult",
    "Sleep",
    "Step",
    "StepContext",
    "Think",
    "Turn",
]


@attrs.frozen
class Say:
    """The model says ``text``."""

    text: str


@attrs.frozen
class Think:
    """The model reasons ``text``."""

    text: str


@attrs.frozen
class CallBuiltin:
    """The model calls a built-in tool.

    Attributes:
        tool: common name (``bash``) or native name (``Bash``) of a declared built-in, or
            an undeclared native name.
        input: the native input (``{"command": ...}``, ``{"file_path": ..., "content": ...}``).
        id: the call id (default ``call-<turn>-<step>-<n>``).
        output: a fixed result text instead of running the tool for real.
        provider_metadata: metadata the runtime attaches to the call.
    """

    tool: str
    input: Mapping[str, Any] = attrs.field(factory=dict)
    id: str | None = None
    output: str | None = None
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class CallHost:
    """The model calls a host tool (input may be a mapping or raw JSON text)."""

    tool: str
    input: Mapping[str, Any] | str = attrs.field(factory=dict)
    id: str | None = None
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class EchoResults:
    """The model says ``prefix`` followed by the results of the previous step's calls."""

    prefix: str = ""


@attrs.frozen
class Fail:
    """The runtime fails: the turn ends with ``TurnEnd(error=message)``."""

    message: str
    error_type: str = "model-error"


@attrs.frozen
class Crash:
    """The runtime crashes: the event stream raises ``RuntimeError(message)``."""

    message: str = "scripted runtime crashed"


@attrs.frozen
class Sleep:
    """The runtime blocks for ``seconds`` (use with abort)."""

    seconds: float = 3600.0


@attrs.frozen
class ChangeFile:
    """The runtime reports an opaque workspace change (projected as ``fileChange``)."""

    path: str
    kind: Literal["add", "modify", "delete"] = "modify"


@attrs.frozen
class Compact:
    """The runtime compacts its context (projected as ``compaction``)."""

    summary: str = "compacted"


Action: TypeAlias = Say | Think | CallBuiltin | CallHost | EchoResults | Fail | Crash | Sleep | ChangeFile | Compact


@attrs.frozen(kw_only=True)
class ScriptedResult:
    """One call result as the scripted model saw it.

    Attributes:
        tool_call_id / tool_name: the call.
        content: the result text the model received.
        is_error: an error result (denials included).
    """

    tool_call_id: str
    tool_name: str
    content: str
    is_error: bool


@attrs.frozen(kw_only=True)
class StepContext:
    """What a step function receives.

    Attributes:
        turn_index / step_index: 0-based positions.
        prompt: the turn's prompt.
        results: the previous step's call results, in call order.
        host_tools: names of the host tools offered for this turn.
        workspace: the workspace directory, if any.
    """

    turn_index: int
    step_index: int
    prompt: str
    results: tuple[ScriptedResult, ...]
    host_tools: tuple[str, ...]
    workspace: Path | None


Step: TypeAlias = Sequence[Action] | Callable[[StepContext], Sequence[Action]]
Turn: TypeAlias = Sequence[Step]
