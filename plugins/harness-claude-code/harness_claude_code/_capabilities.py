"""What the Claude Code adapter supports (:mod:`harness_core.capabilities` declarations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import Capability, CapabilitySupport, supported

__all__ = ["CAPABILITIES"]

CAPABILITIES: Final[Mapping[Capability, CapabilitySupport]] = {
    Capability.STRUCTURED_OUTPUT: supported(
        "Claude Code's --json-schema option (ClaudeAgentOptions.output_format): the model answers through its "
        "StructuredOutput tool, whose input becomes the last step's text"),
    Capability.STOP_CONDITIONS: supported("evaluated by the core after each step; the CLI's later events wait queued"),
    Capability.PLAN_MODE: supported("Claude Code's 'plan' permission mode (the CLI restarts on a mode change, "
                                    "resuming its session)"),
    Capability.COMPACTION: supported("Claude Code's /compact command"),
    Capability.CROSS_PROCESS_CONTINUATION: supported("resumes the Claude Code session and its interrupted turn"),
    Capability.MCP_SERVERS: supported("Claude Code's own MCP client (stdio, HTTP, SSE, SDK servers)"),
    Capability.STEERING: supported("a user message written to the CLI's streaming input while the turn runs"),
    Capability.SKILLS: supported("installed in the skills folder of the isolated config dir "
                                 "(<CLAUDE_CONFIG_DIR>/skills/<name>/SKILL.md); the model loads one with its Skill tool"),
}
"""Capability declarations of the ``claude-code`` adapter."""
