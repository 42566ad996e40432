"""The JSON state of a built-in session: its conversation, and an unfinished step.

``stop()`` returns :class:`SessionState` without a pending step; ``suspend_turn()``
returns it with the step whose calls wait for approvals or host results
(:class:`PendingStep`) and the turn's counters, so another process can continue the turn
(``continue_from``) or the conversation (``resume_from``).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import pydantic

from harness_core import HarnessConfigurationError, Usage

from .conversation import Message

__all__ = ["STATE_VERSION", "CallState", "PendingStep", "SessionState", "TurnCounters", "TurnOptions", "load_state"]

STATE_VERSION: Final = 1


class _State(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


CallStatus = Literal["approval", "approved", "denied", "refused", "waiting", "done"]
"""``approval``: waits for a decision; ``approved``: will run; ``denied``: a decision
refused it; ``refused``: an inactive built-in; ``waiting``: a host call waits for its
result; ``done``: has its result."""


class CallState(_State):
    """One tool call of the pending step."""

    call_id: str
    name: str
    arguments: dict[str, Any] = pydantic.Field(default_factory=dict)
    kind: Literal["builtin", "host"]
    status: CallStatus
    approval_id: str | None = None
    reason: str | None = None
    content: str | None = None
    items: list[dict[str, Any]] | None = None
    warnings: list[str] = pydantic.Field(default_factory=list)
    output: Any = None
    is_error: bool = False
    changes: list[dict[str, str]] = pydantic.Field(default_factory=list)
    announced: bool = False
    reported: bool = False


class PendingStep(_State):
    """A model step whose tool calls are not all answered yet."""

    calls: list[CallState]
    usage: Usage = Usage()
    finish_reason: str = "tool-calls"
    executed: bool = False


class TurnCounters(_State):
    """What the current turn has used so far (limits are checked against these)."""

    steps: int = 0
    tool_calls: int = 0
    tokens: int = 0
    repairs: int = 0
    repair_mode: bool = False
    usage: Usage = Usage()


class TurnOptions(_State):
    """What the unfinished turn's prompt asked for (plan mode must survive continue_from)."""

    output_schema: dict[str, Any] | None = None
    mode: Literal["default", "plan"] = "default"


class SessionState(_State):
    """Everything a built-in session needs to resume or continue elsewhere."""

    version: Literal[1] = STATE_VERSION
    harness: Literal["builtin"] = "builtin"
    messages: list[Message] = pydantic.Field(default_factory=list)
    pending: PendingStep | None = None
    counters: TurnCounters | None = None
    compactions: int = 0
    turn_options: TurnOptions | None = None


def load_state(data: object, *, where: str) -> SessionState:
    """Validate state from ``stop()`` / ``suspend_turn()``.

    Raises:
        HarnessConfigurationError: not built-in state, another version, or a bad field
            (named with its path).
    """
    if not isinstance(data, dict):
        raise HarnessConfigurationError(f"{where}: expected the JSON object from stop() or suspend_turn(), got {type(data).__name__}")
    if data.get("harness") != "builtin":
        raise HarnessConfigurationError(f"{where}: this is not built-in harness state (harness={data.get('harness')!r})")
    if data.get("version") != STATE_VERSION:
        raise HarnessConfigurationError(
            f"{where}: unsupported built-in state version {data.get('version')!r} (this version reads {STATE_VERSION})"
        )
    try:
        return SessionState.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise HarnessConfigurationError(f"{where}: malformed built-in state at {loc}: {first['msg']}") from None
