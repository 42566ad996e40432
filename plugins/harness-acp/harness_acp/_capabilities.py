"""What the ACP adapter supports (:mod:`harness_core.capabilities` declarations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import Capability, CapabilitySupport, supported, unsupported

__all__ = ["CAPABILITIES"]

CAPABILITIES: Final[Mapping[Capability, CapabilitySupport]] = {
    Capability.STRUCTURED_OUTPUT: unsupported("the Agent Client Protocol has no output-schema or response-format "
                                              "field on session/prompt"),
    Capability.STOP_CONDITIONS: unsupported("ACP reports no model-step boundaries (session/update has no step "
                                            "events), so there is no finished step to stop after"),
    Capability.PLAN_MODE: unsupported("ACP session modes are agent-specific (session/set_mode); no profile maps "
                                      "one to a read-only plan mode yet"),
    Capability.COMPACTION: unsupported("ACP has no compaction request"),
    Capability.CROSS_PROCESS_CONTINUATION: unsupported("the agent process keeps the pending request"),
    Capability.MCP_SERVERS: supported("passed to the agent in session/new mcpServers"),
    Capability.STEERING: unsupported("ACP's session/prompt takes one message per prompt; the protocol has no way "
                                     "to add one to a running prompt"),
    Capability.SKILLS: unsupported("not mapped yet"),
}
"""Capability declarations of the ``acp`` adapter."""
