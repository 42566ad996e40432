"""The adapter's JSON state: resume state (``stop``) and continue state (``suspend_turn``).

Both are plain JSON mappings with ``"version": 1`` and a ``kind``; they are parsed back with
:func:`parse_resume_state` / :func:`parse_continue_state`, which raise
:class:`~harness_core.HarnessConfigurationError` naming the bad field.

Resume state::

    {"version": 1, "kind": "claude-code/resume",
     "claude_session_id": "6062c84d-...", "cwd": "/abs/workspace"}

Continue state (a turn suspended while Claude Code waited for the host)::

    {"version": 1, "kind": "claude-code/continue",
     "claude_session_id": "...", "cwd": "/abs/workspace",
     "plan": false, "output_schema": null,     # the turn's plan mode and output schema
     "calls": {                                # calls of the turn with no recorded result
       "toolu_1": {"kind": "builtin", "native_name": "Write", "input": {...},
                   "approval_id": "approval-toolu_1", "asked": true, "answer": null},
       "toolu_2": {"kind": "host", "native_name": "mcp__harness__pick",
                   "tool_name": "pick", "input": {...}, "asked": true, "answer": null}
     }}

An ``answer`` is ``{"approved": true}``, ``{"approved": false, "reason": "..."}`` (built-ins)
or ``{"content": "...", "is_error": false}`` (host tools).
"""

from __future__ import annotations

from typing import Any, Literal

import pydantic

from harness_core import HarnessConfigurationError, ToolOutput

from ._rich import mcp_blocks

__all__ = [
    "DEFAULT_DENIAL",
    "STATE_VERSION",
    "ApprovalAnswer",
    "ContinueState",
    "PendingCall",
    "ResultAnswer",
    "ResumeState",
    "parse_continue_state",
    "parse_resume_state",
]

STATE_VERSION = 1

DEFAULT_DENIAL = "The host denied this tool call."
"""What the model reads when a denial came without a reason."""


class _Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class ApprovalAnswer(_Model):
    """The host's decision on a built-in call."""

    approved: bool
    reason: str | None = None


class ResultAnswer(_Model):
    """The host's result for a host tool call.

    ``content`` is its text (a rich result's text with a placeholder per item Claude Code
    cannot take); ``blocks`` the MCP content blocks sent for a rich result (``text`` and
    ``image`` items, see :func:`~harness_claude_code._mcp.mcp_blocks`), else ``None``.
    """

    content: str
    is_error: bool = False
    blocks: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, output: ToolOutput) -> ResultAnswer:
        """The answer for a host result: its text and, for a rich result, its MCP blocks."""
        blocks, text = mcp_blocks(output)
        return cls(content=text, is_error=output.is_error, blocks=blocks)


class PendingCall(_Model):
    """A call of the suspended turn whose result Claude Code has not recorded.

    Attributes:
        kind: ``builtin`` (Claude Code runs it after approval) or ``host`` (the host runs it).
        native_name: the name Claude Code used (``Write``, ``mcp__harness__pick``).
        tool_name: the host tool name for host calls.
        input: the input as Claude Code sent it.
        approval_id: the approval id given to the host, for built-ins.
        asked: the host was asked (an approval request or a host tool call was sent);
            parallel calls Claude Code had not asked about yet are ``False``.
        answer: the host's answer if it gave one before suspending, else ``None``.
    """

    kind: Literal["builtin", "host"]
    native_name: str
    tool_name: str | None = None
    input: Any = None
    approval_id: str | None = None
    asked: bool = False
    answer: ApprovalAnswer | ResultAnswer | None = None


class ResumeState(_Model):
    """What ``stop()`` returns: enough to resume the Claude Code session later."""

    version: Literal[1] = 1
    kind: Literal["claude-code/resume"] = "claude-code/resume"
    claude_session_id: str | None = None
    cwd: str | None = None


class ContinueState(_Model):
    """What ``suspend_turn()`` returns: the session plus the turn's unanswered calls."""

    version: Literal[1] = 1
    kind: Literal["claude-code/continue"] = "claude-code/continue"
    claude_session_id: str
    cwd: str
    calls: dict[str, PendingCall] = pydantic.Field(default_factory=dict)
    plan: bool = False
    """The turn runs in plan mode (it must stay read-only when continued)."""
    output_schema: dict[str, Any] | None = None
    """The turn's structured-output JSON Schema (the continued CLI gets it again)."""


def _parse(model: type[_Model], data: object, what: str) -> Any:
    if not isinstance(data, dict):
        raise HarnessConfigurationError(f"claude-code {what}: expected a JSON object, got {type(data).__name__}")
    version = data.get("version")
    if version != STATE_VERSION:
        raise HarnessConfigurationError(
            f"claude-code {what}: unsupported version {version!r} (this adapter reads version {STATE_VERSION})"
        )
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in issue['loc']) or '<root>'}: {issue['msg']}" for issue in error.errors()
        )
        raise HarnessConfigurationError(f"claude-code {what}: {problems}") from None


def parse_resume_state(data: object) -> ResumeState:
    """Parse ``resume_from`` state; raises :class:`HarnessConfigurationError` naming the bad field."""
    state: ResumeState = _parse(ResumeState, data, "resume state")
    return state


def parse_continue_state(data: object) -> ContinueState:
    """Parse ``continue_from`` state; raises :class:`HarnessConfigurationError` naming the bad field."""
    state: ContinueState = _parse(ContinueState, data, "continue state")
    return state
