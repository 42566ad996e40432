"""Approvals: statuses, permission modes, decisions and how several decisions merge.

Every tool call the runtime wants to make is decided by the ``harness_approve_call`` hook.
Each implementation returns an :class:`ApprovalDecision` or ``None`` (no opinion); the
results are merged by :func:`merge_decisions`:

* ``denied`` beats ``user-approval`` beats ``approved`` beats ``not-applicable``, whatever
  the order in which plugins ran;
* a *fallback* decision (the permission mode's default for a built-in) only counts when no
  explicit decision (rules, ``tool_approval``, an org policy) approved or asked, so an
  explicit allow pre-approves what the mode would have asked, while a denial always wins.

Statuses follow the AI SDK's tool approval status values.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import attrs

from harness_core.tools.definition import (
    BuiltinTool,
    HarnessTool,
    ToolCall,
    ToolKind,
    ToolResources,
)

if TYPE_CHECKING:
    pass

__all__ = [
    "ApprovalContext",
    "ApprovalDecision",
    "ApprovalStatus",
    "PermissionMode",
    "ToolApprovalSetting",
    "merge_decisions",
    "mode_allows",
    "parse_tool_approval",
]


class ApprovalStatus(enum.StrEnum):
    """The outcome of deciding one tool call (AI SDK tool approval statuses)."""

    NOT_APPLICABLE = "not-applicable"
    APPROVED = "approved"
    USER_APPROVAL = "user-approval"
    DENIED = "denied"

    @classmethod
    def parse(cls, value: object, *, where: str) -> ApprovalStatus:
        """Parse a status from its string value.

        Raises:
            ValueError: naming ``where`` and the valid values.
        """
        if isinstance(value, ApprovalStatus):
            return value
        try:
            return cls(str(value)) if isinstance(value, str) else cls(value)  # type: ignore[arg-type]
        except ValueError:
            valid = ", ".join(s.value for s in cls)
            raise ValueError(f"{where}: {value!r} is not an approval status (valid: {valid})") from None


_RANK: dict[ApprovalStatus, int] = {
    ApprovalStatus.NOT_APPLICABLE: 0,
    ApprovalStatus.APPROVED: 1,
    ApprovalStatus.USER_APPROVAL: 2,
    ApprovalStatus.DENIED: 3,
}


class PermissionMode(enum.StrEnum):
    """How much a harness may do with its built-in tools without asking.

    ``allow-all`` (default) allows reads, edits and shell commands; ``allow-edits`` asks
    before shell commands; ``allow-reads`` asks before edits and shell commands.
    """

    ALLOW_ALL = "allow-all"
    ALLOW_EDITS = "allow-edits"
    ALLOW_READS = "allow-reads"

    @classmethod
    def parse(cls, value: object) -> PermissionMode:
        """Parse a mode; raises ``ValueError`` naming the valid values."""
        if isinstance(value, PermissionMode):
            return value
        try:
            return cls(str(value)) if isinstance(value, str) else cls(value)  # type: ignore[arg-type]
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise ValueError(f"permission_mode {value!r} is not one of: {valid}") from None


def mode_allows(mode: PermissionMode, kind: ToolKind) -> bool:
    """True when ``mode`` lets a built-in of ``kind`` run without asking."""
    if kind is ToolKind.READ_ONLY:
        return True
    if kind is ToolKind.EDIT:
        return mode in (PermissionMode.ALLOW_ALL, PermissionMode.ALLOW_EDITS)
    return mode is PermissionMode.ALLOW_ALL


def _to_status(value: object) -> ApprovalStatus:
    return ApprovalStatus.parse(value, where="ApprovalDecision.status")


@attrs.frozen
class ApprovalDecision:
    """One policy's decision about one call.

    Attributes:
        status: the decision; a status string (``"denied"``) is converted, and anything
            that is not a status raises ``ValueError`` at construction (inside a policy,
            that makes the policy's decision a denial naming it: deny wins, never
            fail-open).
        reason: why; a denial's reason reaches the model.
        plugin: the deciding plugin's name (filled in by the plugin manager when empty).
        fallback: a default that explicit decisions override (see module docs); the
            permission-mode policy uses it.
        details: structured evidence (a matched rule, its file and line...).
    """

    status: ApprovalStatus = attrs.field(converter=_to_status)
    reason: str | None = None
    plugin: str = ""
    fallback: bool = False
    details: Mapping[str, Any] = attrs.field(factory=dict, eq=False)


ToolApprovalSetting: TypeAlias = (
    "ApprovalStatus | str | Mapping[str, Any] "
    "| Callable[[ToolCall, ApprovalContext], ApprovalStatus | str | Mapping[str, Any] | None]"
)
"""A host tool's ``tool_approval`` entry: a status, ``{"type": status, "reason": text}``
(the reason reaches the model on a denial), or a function of the call returning either."""


def parse_tool_approval(value: object, *, where: str) -> tuple[ApprovalStatus, str | None]:
    """A ``tool_approval`` value (status, or ``{"type": status, "reason": str | None}``) as
    ``(status, reason)``.

    Raises:
        ValueError: not a status, or a mapping with other keys, no ``type`` or a non-string
            ``reason`` (naming ``where``).
    """
    if isinstance(value, Mapping):
        extra = sorted(str(k) for k in value if k not in ("type", "reason"))
        if extra or "type" not in value:
            raise ValueError(f"{where}: a decision mapping takes 'type' and an optional 'reason', "
                             f"got keys {sorted(str(k) for k in value)}")
        reason = value.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ValueError(f"{where}: 'reason' must be a string, got {type(reason).__name__}")
        return ApprovalStatus.parse(value["type"], where=f"{where}['type']"), reason
    return ApprovalStatus.parse(value, where=where), None


@attrs.frozen(kw_only=True)
class ApprovalContext:
    """What approval policies know about a call besides the call itself.

    Attributes:
        harness_id: the adapter's harness id.
        session_id: the session the call belongs to.
        permission_mode: the agent's permission mode.
        tool: the called tool (host or built-in), or ``None`` for a tool the host does not
            know (an undeclared native or an external MCP tool).
        resources: what the call touches, from the tool's ``resources`` extractor, or
            ``None`` when the tool has none.
        workspace_root: the sandbox's workspace root, when there is one.
        tool_approval: the agent's ``tool_approval`` settings, by host tool name.
    """

    harness_id: str
    session_id: str = ""
    permission_mode: PermissionMode = PermissionMode.ALLOW_ALL
    tool: HarnessTool | BuiltinTool | None = None
    resources: ToolResources | None = None
    workspace_root: str | None = None
    tool_approval: Mapping[str, ToolApprovalSetting] = attrs.field(factory=dict)


def merge_decisions(decisions: Iterable[ApprovalDecision | None]) -> ApprovalDecision:
    """Merge policy decisions into one.

    Args:
        decisions: each policy's decision; ``None`` entries (no opinion) are ignored.

    Returns:
        The winning decision: any denial (fallback or not); else the strongest explicit
        decision when one approved or asked; else the strongest fallback decision; else
        ``not-applicable`` from plugin ``""``. Among equal statuses the first one wins,
        so the result does not depend on plugin order except for which reason is shown.
    """
    explicit: ApprovalDecision | None = None
    fallback: ApprovalDecision | None = None
    for decision in decisions:
        if decision is None:
            continue
        if decision.status is ApprovalStatus.DENIED:
            return decision
        if decision.fallback:
            if fallback is None or _RANK[decision.status] > _RANK[fallback.status]:
                fallback = decision
        elif explicit is None or _RANK[decision.status] > _RANK[explicit.status]:
            explicit = decision
    if explicit is not None and explicit.status is not ApprovalStatus.NOT_APPLICABLE:
        return explicit
    if fallback is not None:
        return fallback
    return explicit or ApprovalDecision(ApprovalStatus.NOT_APPLICABLE)
