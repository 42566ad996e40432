"""Structured output and plan mode on the built-in harness.

**Structured output** (``PromptRequest.output_schema``): the model is offered one more tool,
``final_answer``, whose input schema is the output schema, and told to finish by calling
it. Its call is checked like a host call (an invalid answer gets the harness's repair
turn, ``max_repairs``); a valid one ends the turn: its arguments are streamed as the last
step's **text** (the JSON document, the core's structured-output contract) instead of
tool-input parts, recorded in the history as the assistant's answer, and the turn ends with
``stop``. An answer given as plain text is left to the core to validate.

**Plan mode** (``PromptRequest.mode == "plan"``): only read-only tools are offered (the
read-only built-ins and MCP tools, read-only host tools) and the system prompt gets the
planning instruction below; a call to any other tool is refused with a repair note, so
nothing is edited and no command runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from harness_core import (
    Capability,
    CapabilitySupport,
    Part,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    supported,
)

from .models.base import ToolSpec

__all__ = ["CAPABILITIES", "FINAL_ANSWER", "PLAN_INSTRUCTION", "FinalAnswerText", "TurnFeatures"]

FINAL_ANSWER = "final_answer"
"""The name of the structured-output tool."""

PLAN_INSTRUCTION = (
    "You are in plan mode: do not edit files or run commands that change anything. Look at the "
    "code with the read-only tools you have, then answer with a concise, numbered plan of the "
    "changes you would make (files, functions, tests). The plan is your whole answer."
)
"""Appended to the system prompt in plan mode."""

_OUTPUT_INSTRUCTION = (
    f"When you have the answer, call the tool {FINAL_ANSWER!r} exactly once with it as the "
    "arguments; that call is your final answer, so do not write it as text."
)


@attrs.frozen
class TurnFeatures:
    """What the current prompt asked for.

    Attributes:
        output_schema: the final answer's JSON Schema, or ``None``.
        mode: ``default`` or ``plan``.
    """

    output_schema: Mapping[str, Any] | None = None
    mode: str = "default"

    @property
    def plan(self) -> bool:
        """True in plan mode."""
        return self.mode == "plan"

    def final_answer_spec(self) -> ToolSpec | None:
        """The ``final_answer`` tool, when structured output is requested."""
        if self.output_schema is None:
            return None
        return ToolSpec(FINAL_ANSWER, "Give your final answer (the arguments are the answer).",
                        dict(self.output_schema))

    def schemas(self) -> Mapping[str, Mapping[str, Any]]:
        """``{final_answer: schema}`` to check its calls against, or ``{}``."""
        return {} if self.output_schema is None else {FINAL_ANSWER: self.output_schema}

    def instructions(self) -> list[str]:
        """The system-prompt paragraphs these features add."""
        extra = [PLAN_INSTRUCTION] if self.plan else []
        if self.output_schema is not None:
            extra.append(_OUTPUT_INSTRUCTION)
        return extra


class FinalAnswerText:
    """Turns the ``final_answer`` call's tool-input parts into text parts, in one response."""

    def __init__(self) -> None:
        self._ids: set[str] = set()

    def project(self, part: Part) -> Part:
        """The part to stream instead of ``part``."""
        if not self._ids and not isinstance(part, ToolInputStartPart):
            return part  # no final answer streaming (the usual case): nothing to rename
        if isinstance(part, ToolInputStartPart) and part.tool_name == FINAL_ANSWER:
            self._ids.add(part.id)
            return TextStartPart(id=part.id)
        if isinstance(part, ToolInputDeltaPart) and part.id in self._ids:
            return TextDeltaPart(id=part.id, text=part.delta)
        if isinstance(part, ToolInputEndPart) and part.id in self._ids:
            return TextEndPart(id=part.id)
        return part


CAPABILITIES: Mapping[Capability, CapabilitySupport] = {
    Capability.STRUCTURED_OUTPUT: supported(f"a {FINAL_ANSWER!r} tool whose input schema is the output schema; "
                                            "an invalid answer gets a repair turn"),
    Capability.STOP_CONDITIONS: supported("evaluated by the core after each step; the loop waits between steps"),
    Capability.PLAN_MODE: supported("only read-only tools are offered, plus a planning instruction"),
    Capability.COMPACTION: supported("summarizes the conversation (automatic and session.compact())"),
    Capability.CROSS_PROCESS_CONTINUATION: supported("the pending step is JSON state"),
    Capability.MCP_SERVERS: supported("stdio and streamable HTTP servers, as mcp__<server>__<tool> tools"),
    Capability.SKILLS: supported("a read-only 'skill' tool lists the skills and returns one's SKILL.md or files "
                                 "(served from memory: nothing is written)"),
    Capability.STEERING: supported("a user message added at the next step boundary, before the next model call"),
}
"""The built-in harness's capability declarations (:mod:`harness_core.capabilities`)."""
