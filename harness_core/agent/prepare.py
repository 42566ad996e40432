"""``prepare_call``: the per-slice hook that rebinds the tools context."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from harness_core.agent.session import HarnessSession

__all__ = ["PrepareCall", "PrepareCallOptions"]


@attrs.frozen(kw_only=True)
class PrepareCallOptions:
    """What ``prepare_call`` receives at the start of every result slice.

    Attributes:
        session: the session the slice runs on.
        prompt: the prompt text, or ``None`` when a paused turn continues.
        options: the ``options`` mapping given to ``stream()`` / ``generate()`` / ``continue_*``
            (the AI SDK's call options), empty when none were given.
        tools_context: the session's (else the agent's) tools context map.
    """

    session: HarnessSession
    prompt: str | None
    options: Mapping[str, Any]
    tools_context: Mapping[str, Any]


PrepareCall = Callable[[PrepareCallOptions], "Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None"]
"""``prepare_call(options)`` returns the tools context map for this slice (``None`` keeps it)."""
