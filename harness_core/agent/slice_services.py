"""What a call path needs from the result slice it runs in (passed in, by composition)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import attrs

from harness_core.execution import CallScheduler
from harness_core.parts.models import Part

__all__ = ["CallScheduler", "SliceServices"]


@attrs.frozen(kw_only=True)
class SliceServices:
    """The result slice's services for the call paths.

    Attributes:
        emit: sends a part the core produced (through the slice's stream invariants).
        spawn: runs a coroutine function concurrently inside the slice (host executions).
        fail: ends the slice with an ``error`` part (``on_error="fail"``, a rejected result).
        scheduler: read-only calls in parallel, others exclusive.
        tools_context: the tools context map in effect for this slice.
    """

    emit: Callable[[Part], None]
    spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], None]
    fail: Callable[[str], None]
    scheduler: CallScheduler
    tools_context: Mapping[str, Any]
