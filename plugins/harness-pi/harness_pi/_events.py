"""The native events a pi turn yields, turned into parts by :mod:`harness_pi._projection`.

The turn (:mod:`harness_pi._turn`) decides what each pi record means for the host (a
built-in call the host approved, a host tool, a denial...) and yields only what the
projection must show; control events (approvals, host calls) never become these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import attrs

__all__ = ["PiCompaction", "PiEvent", "PiRecord", "PiRefusedHostCall", "PiToolCall", "PiToolProgress", "PiToolResult"]


@attrs.frozen
class PiRecord:
    """An assistant ``message_start`` / ``message_update`` / ``message_end`` record, as pi sent it."""

    record: Mapping[str, Any]


@attrs.frozen
class PiToolCall:
    """A call pi runs itself, shown as a provider-executed ``tool-call`` (no host approval asked)."""

    call_id: str
    native_name: str
    input: Any


@attrs.frozen
class PiToolResult:
    """The final result of a call pi ran (``tool_execution_end``)."""

    call_id: str
    native_name: str
    input: Any
    output: str
    is_error: bool


@attrs.frozen
class PiToolProgress:
    """A partial result of a running built-in (``tool_execution_update``): a preliminary result."""

    call_id: str
    native_name: str
    input: Any
    output: str


@attrs.frozen
class PiRefusedHostCall:
    """A call to a host tool the session withholds (``StartRequest.withheld_host_tools``).

    The tool was never registered in pi, so pi answered the model itself (``told``, such as
    "Tool secret not found"); nothing ran. Shown as ``tool-call`` + ``tool-output-denied``.
    """

    call_id: str
    tool_name: str
    input: Any
    told: str


@attrs.frozen
class PiCompaction:
    """A finished compaction (``compaction_end`` with a result)."""

    compaction_id: str
    reason: str
    summary: str
    tokens_before: int | None = None


PiEvent: TypeAlias = PiRecord | PiToolCall | PiToolProgress | PiToolResult | PiRefusedHostCall | PiCompaction
"""Every native event of the pi adapter."""
