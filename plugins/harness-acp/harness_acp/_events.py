"""The native events an ACP turn yields, before projection into stream parts."""

from __future__ import annotations

import attrs

from harness_core import Part

__all__ = ["AcpEvent"]


@attrs.frozen
class AcpEvent:
    """One item of an ACP turn's event stream.

    Attributes:
        update: a ``session/update`` payload from the ``agent-client-protocol`` SDK
            (``AgentMessageChunk``, ``AgentThoughtChunk``, ``AgentPlanUpdate``,
            ``UsageUpdate``...), or ``None``.
        parts: tool parts the turn already built (calls, results, file changes); the
            projection closes any open text or reasoning block before them.
        close: close any open text or reasoning block (sent before the turn ends).
    """

    update: object | None = None
    parts: tuple[Part, ...] = ()
    close: bool = False
