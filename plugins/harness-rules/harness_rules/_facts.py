"""What the engine needs to know about one call (:class:`CallFacts`)."""

from __future__ import annotations

import attrs

from harness_core import ToolResources

from ._names import canonical_tool

__all__ = ["CallFacts", "canonical_names"]


@attrs.frozen
class CallFacts:
    """What the engine needs to know about a call.

    Attributes:
        names: every name the call is known by (harness-facing, native, declared).
        builtin: a runtime built-in (names are mapped to common names) rather than a host
            or MCP tool (names compared as written).
        resources: what the call touches, or ``None`` (matched by name only).
        workspace_root: absolute directory relative paths and ``./`` patterns resolve in.
        label: the tool name to show in reasons.
        missing: what the call's input lacks for the rules to judge it (a ``bash`` call
            without a command, a ``read`` without a path), or ``None``. Such a call is asked
            about when deny or ask rules could have applied to it.
        excludes: for a search whose tool takes an ``exclude`` list (the built-in
            harness's grep and glob), the workspace-relative paths it leaves out.
        can_exclude: the search tool declares an ``exclude`` input: a denial then names
            the paths to exclude, and a call excluding them is judged without them.
    """

    names: frozenset[str]
    builtin: bool
    resources: ToolResources | None
    workspace_root: str
    label: str
    missing: str | None = None
    excludes: tuple[str, ...] = ()
    can_exclude: bool = False
    canonical_names: frozenset[str] = attrs.field(init=False, eq=False, repr=False)
    """The names mapped to common names (built-ins only)."""

    def __attrs_post_init__(self) -> None:
        canonical = canonical_names(self.names) if self.builtin else self.names
        object.__setattr__(self, "canonical_names", canonical)


_CANONICAL: dict[frozenset[str], frozenset[str]] = {}
"""Common names by set of names (a pure function, bounded)."""


def canonical_names(names: frozenset[str]) -> frozenset[str]:
    """``names`` mapped to common names (:func:`~harness_rules._names.canonical_tool`)."""
    found = _CANONICAL.get(names)
    if found is None:
        found = frozenset(canonical_tool(n) for n in names)
        if len(_CANONICAL) > 4096:
            _CANONICAL.clear()
        _CANONICAL[names] = found
    return found


