"""What the rules say about a call: :class:`RuleVerdict`, and the :class:`RuleMatch` es behind it."""

from __future__ import annotations

from typing import Any, Final, Literal

import attrs

from harness_core import ApprovalDecision, ApprovalStatus

from ._syntax import Rule

__all__ = ["Decision", "RuleMatch", "RuleVerdict"]

Decision = Literal["allow", "ask", "deny", "none"]

_STATUS: Final[dict[str, ApprovalStatus]] = {
    "allow": ApprovalStatus.APPROVED,
    "ask": ApprovalStatus.USER_APPROVAL,
    "deny": ApprovalStatus.DENIED,
}


@attrs.frozen
class RuleMatch:
    """One rule that matched part of a call.

    Attributes:
        rule: the rule.
        subject: what it matched (a path, a command, a tool name), as shown in reasons.
    """

    rule: Rule
    subject: str

    def to_json(self) -> dict[str, Any]:
        """``{"rule", "action", "source", "line", "layer", "subject"}``."""
        origin = self.rule.origin
        return {"rule": self.rule.text, "action": self.rule.action.value, "source": origin.source,
                "line": origin.line, "layer": origin.layer, "subject": self.subject}


@attrs.frozen
class RuleVerdict:
    """What the rules say about one call.

    Attributes:
        decision: ``allow``, ``ask``, ``deny`` or ``none`` (no opinion).
        reason: a sentence saying why; a denial's reason is what the model reads.
        rule: the deciding rule (``None`` for ``none`` and for asks about what could not
            be judged).
        subject: what the deciding rule matched.
        matches: every rule that matched, deny first.
    """

    decision: Decision
    reason: str
    rule: Rule | None = None
    subject: str | None = None
    matches: tuple[RuleMatch, ...] = ()

    def details(self) -> dict[str, Any]:
        """Evidence for :attr:`harness_core.ApprovalDecision.details`: ``rule``, ``source``,
        ``line``, ``layer``, ``decision``, ``subject`` and ``matches``."""
        origin = self.rule.origin if self.rule is not None else None
        return {
            "rule": self.rule.text if self.rule is not None else None,
            "source": origin.source if origin is not None else None,
            "line": origin.line if origin is not None else None,
            "layer": origin.layer if origin is not None else None,
            "decision": self.decision,
            "subject": self.subject,
            "matches": [m.to_json() for m in self.matches],
        }

    def to_approval(self) -> ApprovalDecision | None:
        """The explicit :class:`~harness_core.ApprovalDecision` (``None`` for ``none``)."""
        status = _STATUS.get(self.decision)
        if status is None:
            return None
        return ApprovalDecision(status, self.reason, details=self.details())

    def to_json(self) -> dict[str, Any]:
        """``{"decision", "rule", "source", "line", "layer", "reason", "subject", "matches"}``."""
        details = self.details()
        return {"decision": self.decision, "rule": details["rule"], "source": details["source"],
                "line": details["line"], "layer": details["layer"], "reason": self.reason,
                "subject": self.subject, "matches": details["matches"]}


