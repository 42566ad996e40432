"""Adapter capability declarations and the table :attr:`HarnessAgent.capabilities` shows.

An adapter declares what its runtime can do as an optional ``capabilities`` attribute: a
mapping from a :class:`Capability` name to a :class:`CapabilitySupport` (built with
:func:`supported` / :func:`unsupported`), each carrying one sentence that says *how* the
runtime does it or *why* it cannot::

    class MyAdapter:
        capabilities = {
            Capability.STRUCTURED_OUTPUT: supported("the final answer tool, validated by the core"),
            Capability.PLAN_MODE: unsupported("the runtime has no read-only mode"),
        }

:func:`capabilities_of` reads that mapping together with the protocol's two boolean flags
(``supports_builtin_approvals``, ``supports_builtin_filtering``). A capability an adapter
does not declare counts as unsupported ("not declared by the adapter"): features fail
closed. The exception is ``telemetry``: the core makes its spans from the stream parts, so it
counts as supported unless the adapter declares otherwise. The places that need a capability call :meth:`HarnessCapabilities.require`, which
raises :class:`~harness_core.errors.HarnessCapabilityUnsupportedError` with the declared
reason.

New features add a member to :class:`Capability`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from harness_core.errors import HarnessCapabilityUnsupportedError

__all__ = [
    "Capability",
    "CapabilitySupport",
    "HarnessCapabilities",
    "capabilities_of",
    "supported",
    "unsupported",
]


class Capability(enum.StrEnum):
    """The capabilities an adapter can declare (kebab-case names, as shown in tables)."""

    BUILTIN_APPROVALS = "builtin-approvals"
    BUILTIN_FILTERING = "builtin-filtering"
    STRUCTURED_OUTPUT = "structured-output"
    STOP_CONDITIONS = "stop-conditions"
    PLAN_MODE = "plan-mode"
    COMPACTION = "compaction"
    CROSS_PROCESS_CONTINUATION = "cross-process-continuation"
    MCP_SERVERS = "mcp-servers"
    STEERING = "steering"
    SKILLS = "skills"
    TELEMETRY = "telemetry"


@attrs.frozen
class CapabilitySupport:
    """Whether a runtime supports one capability, and how (or why not).

    Attributes:
        supported: True when the adapter implements the capability.
        detail: one sentence: how the runtime does it, or the reason it cannot.
    """

    supported: bool
    detail: str = ""


def supported(how: str = "") -> CapabilitySupport:
    """A supported capability; ``how`` says how the runtime does it."""
    return CapabilitySupport(True, how)


def unsupported(reason: str) -> CapabilitySupport:
    """An unsupported capability; ``reason`` says why (shown in the error users get)."""
    return CapabilitySupport(False, reason)


_NOT_DECLARED = "not declared by the adapter"
_CORE_TELEMETRY = CapabilitySupport(True, "OpenTelemetry spans made by the core from the stream parts "
                                          "(turn, model step, tool call)")


@attrs.frozen
class HarnessCapabilities:
    """What one adapter supports: a read-only table keyed by :class:`Capability`.

    Iterating yields every known capability in declaration order (undeclared ones
    included, as unsupported). ``caps["structured-output"]`` and
    ``caps[Capability.STRUCTURED_OUTPUT]`` both work.

    Attributes:
        harness_id: the adapter's harness id.
        entries: capability -> support, for every :class:`Capability`.
    """

    harness_id: str
    entries: Mapping[Capability, CapabilitySupport]

    def __getitem__(self, name: Capability | str) -> CapabilitySupport:
        return self.entries[Capability(name)]

    def __iter__(self) -> Iterator[Capability]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def supports(self, name: Capability | str) -> bool:
        """True when the adapter declares ``name`` supported."""
        return self[name].supported

    def require(self, name: Capability | str, what: str = "") -> None:
        """Raise unless ``name`` is supported.

        Args:
            name: the capability.
            what: the setting that needs it (``"output="``), added to the message.

        Raises:
            HarnessCapabilityUnsupportedError: naming the harness, the capability, the
                setting and the adapter's reason.
        """
        entry = self[name]
        if not entry.supported:
            capability = Capability(name).value + (f" ({what})" if what else "")
            raise HarnessCapabilityUnsupportedError(self.harness_id, capability, entry.detail or _NOT_DECLARED)

    def rows(self) -> list[tuple[str, bool, str]]:
        """``(capability, supported, detail)`` rows, in :class:`Capability` order."""
        return [(name.value, entry.supported, entry.detail) for name, entry in self.entries.items()]

    def to_json(self) -> dict[str, dict[str, Any]]:
        """``{capability: {"supported": bool, "detail": str}}`` (JSON data)."""
        return {name.value: {"supported": e.supported, "detail": e.detail} for name, e in self.entries.items()}

    def format_table(self) -> str:
        """A plain-text table: one line per capability (``yes``/``no``, then the detail)."""
        width = max(len(name.value) for name in self.entries)
        return "\n".join(f"{name.value:<{width}}  {'yes' if e.supported else 'no ':<3}  {e.detail}".rstrip()
                         for name, e in self.entries.items())


def capabilities_of(adapter: object) -> HarnessCapabilities:
    """The capability table of ``adapter`` (see the module docs).

    Reads the optional ``capabilities`` mapping (keys: :class:`Capability` or its value;
    values: :class:`CapabilitySupport` or a bool) and the ``supports_builtin_approvals`` /
    ``supports_builtin_filtering`` flags, which win over a contradicting declaration.

    Raises:
        TypeError: ``capabilities`` is not a mapping, or holds a value of another type.
        ValueError: an unknown capability name.
    """
    declared = getattr(adapter, "capabilities", None) or {}
    if not isinstance(declared, Mapping):
        raise TypeError(f"adapter capabilities must be a mapping, got {type(declared).__name__}")
    entries: dict[Capability, CapabilitySupport] = {name: unsupported(_NOT_DECLARED) for name in Capability}
    entries[Capability.TELEMETRY] = _CORE_TELEMETRY  # the core makes the spans (an adapter may opt out)
    for key, value in declared.items():
        name = Capability(key)
        if isinstance(value, bool):
            value = supported() if value else unsupported(_NOT_DECLARED)
        if not isinstance(value, CapabilitySupport):
            raise TypeError(f"capability {name.value!r} must be a CapabilitySupport or a bool, "
                            f"got {type(value).__name__}")
        entries[name] = value
    for name, flag in ((Capability.BUILTIN_APPROVALS, "supports_builtin_approvals"),
                       (Capability.BUILTIN_FILTERING, "supports_builtin_filtering")):
        value = bool(getattr(adapter, flag, False))
        if value != entries[name].supported or (not value and entries[name].detail == _NOT_DECLARED):
            entries[name] = supported() if value else unsupported(f"the adapter sets {flag}=False")
    return HarnessCapabilities(harness_id=str(getattr(adapter, "harness_id", "?")), entries=entries)
