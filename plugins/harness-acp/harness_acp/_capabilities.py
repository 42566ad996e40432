"""What the ACP adapter supports (:mod:`harness_core.capabilities` declarations).

Skills, stop conditions and structured output depend on the agent: the codex-acp and pi-acp
profiles know where their agent reads skills and in which order it reports a model step (so
the last step's text is the answer); a plain ``command`` agent is refused with the reason
(:func:`acp_capabilities`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import Capability, CapabilitySupport, supported, unsupported

from ._settings import AcpSettings

__all__ = ["CAPABILITIES", "acp_capabilities"]

CAPABILITIES: Final[Mapping[Capability, CapabilitySupport]] = {
    Capability.STRUCTURED_OUTPUT: unsupported("the Agent Client Protocol has no output-schema or response-format "
                                              "field on session/prompt, and the adapter cannot tell a plain command "
                                              "agent's last model step (the answer) from the rest of its turn"),
    Capability.STOP_CONDITIONS: unsupported("ACP reports no model-step boundaries (session/update has no step "
                                            "events); the adapter infers them only for the codex-acp and pi-acp "
                                            "profiles, whose update order it knows"),
    Capability.PLAN_MODE: unsupported("ACP session modes are agent-specific (session/set_mode); no profile maps "
                                      "one to a read-only plan mode yet"),
    Capability.COMPACTION: unsupported("ACP has no compaction request"),
    Capability.CROSS_PROCESS_CONTINUATION: unsupported("the agent process keeps the pending request"),
    Capability.MCP_SERVERS: supported("passed to the agent in session/new mcpServers"),
    Capability.STEERING: unsupported("ACP's session/prompt takes one message per prompt; the protocol has no way "
                                     "to add one to a running prompt"),
    Capability.SKILLS: unsupported("ACP has no way to hand skills to an agent, and the adapter does not know where "
                                   "a plain command agent reads them (the codex-acp and pi-acp profiles install them)"),
}
"""Capability declarations of a plain ``command`` ACP agent (the profiles add to them)."""

_STEPS: Final = {
    "calls": "evaluated by the core after each step; a step ends when the tool calls the agent announced for it "
             "all finished (ACP has no step events); the agent's later updates wait queued",
}
_UNRELIABLE_STEPS: Final = {
    "usage": "codex-acp 0.16 can report a call's completion only after the next model response's calls "
             "(seen in tests: a 0.5 s command's completed update after the next step's call ran), so the "
             "step a stop condition would end cannot be told reliably; the codex adapter maps stop conditions",
}


def acp_capabilities(settings: AcpSettings) -> Mapping[Capability, CapabilitySupport]:
    """The declarations for one adapter: :data:`CAPABILITIES` plus what its profile maps."""
    caps = dict(CAPABILITIES)
    profile = settings.profile
    if profile is None:
        return caps
    if profile.step_signal in _STEPS:
        caps[Capability.STOP_CONDITIONS] = supported(_STEPS[profile.step_signal])
    elif profile.step_signal in _UNRELIABLE_STEPS:
        caps[Capability.STOP_CONDITIONS] = unsupported(_UNRELIABLE_STEPS[profile.step_signal])
    if profile.step_signal:
        caps[Capability.STRUCTURED_OUTPUT] = supported(
            "by instruction (ACP has no output-schema field): the JSON Schema is appended to the prompt and the "
            "last model step's text is validated by the core, with repair turns; the model is not constrained")
    if profile.skills_how and settings.base_url is not None:
        caps[Capability.SKILLS] = supported(profile.skills_how)
    elif profile.skills_how:
        caps[Capability.SKILLS] = unsupported(
            f"{profile.name} without base_url= runs on your own agent configuration; skills are installed only into "
            "the isolated home the adapter writes with base_url=")
    return caps
