"""Versioned, JSON-serializable session state: suspended turns and stopped sessions.

:meth:`HarnessSession.suspend_turn() <harness_core.agent.session.HarnessSession.suspend_turn>`
returns a :data:`SuspendedTurnState` mapping and
:meth:`HarnessSession.stop() <harness_core.agent.session.HarnessSession.stop>` a
:data:`ResumeState` mapping. Both are plain JSON data (``json.dumps`` works on them), carry
``"version": 1`` and the harness id, and are read back by
``agent.create_session(continue_from=...)`` / ``resume_from=...``, possibly in another
process. Tool context (``tools_context``) is host-only and never part of either.

Suspended turn state, version 1::

    {
      "version": 1,
      "kind": "suspended-turn",
      "harness_id": "claude-code",
      "session_id": "3f2a...",
      "state": "awaiting-approval",                # or "awaiting-tool-result"
      "pending_approvals": {                       # keyed by approval id
        "approval-call_1": {"approval_id": "approval-call_1", "kind": "host",
                             "tool_call_id": "call_1", "tool_name": "weather",
                             "input": {"city": "Paris"}, "native_tool_name": null,
                             "provider_metadata": {}}
      },
      "pending_tool_results": {                    # client-side calls, keyed by call id
        "call_2": {"tool_call_id": "call_2", "tool_name": "pick_color", "input": {},
                   "native_tool_name": null, "provider_metadata": {}}
      },
      "decided": {                                 # decisions already made, by call id
        "call_3": {"status": "denied", "reason": "...", "approval_id": "approval-call_3"}
      },
      "output": {"json_schema": {...}, "name": "Plan", "repair_turns": 0},   # optional
      "steering": ["Also mention blue."],          # optional: steering not yet delivered
      "adapter": {...}                             # the adapter's own suspend_turn() state
    }

``output`` is the turn's structured output request (its JSON Schema; the continued turn's
answer is validated against it), ``steering`` the messages ``steer_turn()`` accepted that
the runtime had not received yet (given to the continued turn before it goes on).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import pydantic

from harness_core.errors import HarnessConfigurationError

__all__ = [
    "STATE_VERSION",
    "DecidedCall",
    "PendingApprovalState",
    "PendingToolCallState",
    "ResumeStateModel",
    "SuspendedTurnModel",
    "parse_resume_state",
    "parse_suspended_state",
]

STATE_VERSION = 1
"""The state format this version of harness-core writes and reads."""


class _StateModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)


class PendingToolCallState(_StateModel):
    """A call waiting for something, as stored in suspended state.

    Attributes:
        tool_call_id: the runtime's call id.
        tool_name: harness-facing name (host tool name, or common built-in name).
        input: the raw input as the runtime sent it (never the validated object).
        native_tool_name: the runtime's name when it differs, else ``None``.
        provider_metadata: provider metadata to repeat on parts about this call.
    """

    tool_call_id: str
    tool_name: str
    input: Any = None
    native_tool_name: str | None = None
    provider_metadata: dict[str, dict[str, Any]] = pydantic.Field(default_factory=dict)


class PendingApprovalState(PendingToolCallState):
    """A call waiting for a person's decision.

    Attributes:
        approval_id: the id the decision must carry.
        kind: ``builtin`` (answered through the adapter) or ``host`` (executed by the agent
            once approved).
    """

    approval_id: str
    kind: Literal["builtin", "host"]


class DecidedCall(_StateModel):
    """A decision already taken for a call in this turn (so it is never taken again).

    Attributes:
        status: ``approved`` or ``denied``.
        reason: the reason given, if any.
        approval_id: the approval id, when a person decided.
    """

    status: Literal["approved", "denied"]
    reason: str | None = None
    approval_id: str | None = None


class SuspendedOutput(_StateModel):
    """The structured output of a suspended turn (``Output.to_state()``)."""

    json_schema: dict[str, Any]
    name: str = "output"
    repair_turns: int = pydantic.Field(default=0, ge=0)


class SuspendedTurnModel(_StateModel):
    """Schema of suspended turn state (see the module docs for an example)."""

    version: Literal[1]
    kind: Literal["suspended-turn"] = "suspended-turn"
    harness_id: str
    session_id: str
    state: Literal["awaiting-approval", "awaiting-tool-result"]
    pending_approvals: dict[str, PendingApprovalState] = pydantic.Field(default_factory=dict)
    pending_tool_results: dict[str, PendingToolCallState] = pydantic.Field(default_factory=dict)
    decided: dict[str, DecidedCall] = pydantic.Field(default_factory=dict)
    adapter: dict[str, Any]
    output: SuspendedOutput | None = None
    steering: list[pydantic.constr(min_length=1, max_length=100_000)] = pydantic.Field(  # type: ignore[valid-type]
        default_factory=list)
    traceparent: str | None = pydantic.Field(default=None, pattern=r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
    """With telemetry: the W3C traceparent of the suspended turn's span (:mod:`harness_core.telemetry`)."""


class ResumeStateModel(_StateModel):
    """Schema of stopped-session state, for ``create_session(resume_from=...)``."""

    version: Literal[1]
    kind: Literal["stopped-session"] = "stopped-session"
    harness_id: str
    session_id: str
    adapter: dict[str, Any]


def _load(data: object, what: str) -> Mapping[str, Any]:
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise HarnessConfigurationError(f"{what}: not valid JSON ({exc})") from None
    if not isinstance(data, Mapping):
        raise HarnessConfigurationError(f"{what}: expected a JSON object (mapping), got {type(data).__name__}")
    version = data.get("version")
    if version != STATE_VERSION:
        raise HarnessConfigurationError(
            f"{what}: unsupported state version {version!r}; this harness-core reads version "
            f"{STATE_VERSION} (state written by a newer or older harness-core cannot be continued)"
        )
    return data


def _problems(exc: pydantic.ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '$'}: {err['msg']}" for err in exc.errors(include_url=False)
    )


def parse_suspended_state(data: object, *, harness_id: str) -> SuspendedTurnModel:
    """Validate suspended turn state for the agent's harness.

    Args:
        data: the mapping from ``suspend_turn()`` (or its JSON text).
        harness_id: the harness of the agent continuing it.

    Raises:
        HarnessConfigurationError: not JSON object data, another version, another
            harness, or a malformed field (named with its path).
    """
    raw = _load(data, "continue_from")
    if raw.get("kind", "suspended-turn") != "suspended-turn":
        raise HarnessConfigurationError(
            f"continue_from: this is {raw.get('kind')!r} state (from session.stop()); pass it as resume_from"
        )
    try:
        model = SuspendedTurnModel.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise HarnessConfigurationError(f"continue_from: malformed suspended state: {_problems(exc)}") from None
    if model.harness_id != harness_id:
        raise HarnessConfigurationError(
            f"continue_from: state was suspended on harness {model.harness_id!r}, "
            f"but this agent runs harness {harness_id!r}"
        )
    return model


def parse_resume_state(data: object, *, harness_id: str) -> ResumeStateModel:
    """Validate stopped-session state for the agent's harness.

    Raises:
        HarnessConfigurationError: like :func:`parse_suspended_state`.
    """
    raw = _load(data, "resume_from")
    if raw.get("kind", "stopped-session") != "stopped-session":
        raise HarnessConfigurationError(
            f"resume_from: this is {raw.get('kind')!r} state (from session.suspend_turn()); pass it as continue_from"
        )
    try:
        model = ResumeStateModel.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise HarnessConfigurationError(f"resume_from: malformed session state: {_problems(exc)}") from None
    if model.harness_id != harness_id:
        raise HarnessConfigurationError(
            f"resume_from: state was saved on harness {model.harness_id!r}, "
            f"but this agent runs harness {harness_id!r}"
        )
    return model
