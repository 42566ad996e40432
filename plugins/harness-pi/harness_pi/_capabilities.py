"""What the pi adapter supports (:mod:`harness_core.capabilities` declarations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import Capability, CapabilitySupport, supported, unsupported

__all__ = ["CAPABILITIES"]

CAPABILITIES: Final[Mapping[Capability, CapabilitySupport]] = {
    Capability.STRUCTURED_OUTPUT: supported(
        "by instruction (pi's RPC mode has no response-format or output-schema option): the JSON Schema is "
        "appended to the prompt and the last step's text (pi's last message_end) is validated by the core, with "
        "repair turns; the model is not constrained"),
    Capability.STOP_CONDITIONS: supported("evaluated by the core after each step (pi's message_end); pi's later "
                                          "events wait queued"),
    Capability.PLAN_MODE: unsupported(
        "pi has no plan or read-only mode; a read-only tool set would need pi restarted with other --tools "
        "(not mapped yet)"),
    Capability.COMPACTION: supported("pi's compact RPC command"),
    Capability.CROSS_PROCESS_CONTINUATION: supported("pi's session file and the extension's pending calls"),
    Capability.MCP_SERVERS: supported("served to pi through the generated extension"),
    Capability.STEERING: supported("pi's steer command: delivered after the current tool calls, before the next "
                                   "model call"),
    Capability.SKILLS: supported("installed in pi's skills folder of the session's private home "
                                 "(PI_CODING_AGENT_DIR/skills); pi lists them in its system prompt and the model reads SKILL.md"),
}
"""Capability declarations of the ``pi`` adapter."""
