"""What the Codex adapter supports (:mod:`harness_core.capabilities` declarations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import Capability, CapabilitySupport, supported, unsupported

__all__ = ["CAPABILITIES"]

CAPABILITIES: Final[Mapping[Capability, CapabilitySupport]] = {
    Capability.STRUCTURED_OUTPUT: supported(
        "turn/start's outputSchema: Codex constrains the final agent message, streamed as the last step's text "
        "(the Responses API wants strict schemas: additionalProperties false, every property required)"),
    Capability.STOP_CONDITIONS: supported(
        "evaluated by the core after each step; a step ends after its tool items completed and "
        "thread/tokenUsage/updated reported the model response done (the app-server has no step events); "
        "Codex's later events wait queued"),
    Capability.PLAN_MODE: unsupported(
        "Codex's 'plan' collaboration mode only changes the instructions, and the adapter cannot yet hold a "
        "turn read-only (escalated commands would still reach the approval path)"),
    Capability.COMPACTION: supported("thread/compact/start"),
    Capability.CROSS_PROCESS_CONTINUATION: supported("thread/resume from the kept Codex home"),
    Capability.MCP_SERVERS: supported("Codex's [mcp_servers] configuration"),
    Capability.STEERING: supported("turn/steer adds the message to the running turn (not to a turn continued "
                                   "in another process)"),
    Capability.SKILLS: supported("installed in the skills folder of the session's Codex home "
                                 "(CODEX_HOME/skills/<name>/SKILL.md), never the machine's own ~/.codex"),
}
"""Capability declarations of the ``codex`` adapter."""
