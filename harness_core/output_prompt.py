"""Structured output by instruction, for runtimes with no response-format or schema option.

An adapter that declares ``structured-output`` must make the turn's last step carry the
answer as its text, the JSON document only (:mod:`harness_core.agent.output`). A runtime that
cannot constrain its model (pi's RPC, the Agent Client Protocol) can still ask for it: append
:func:`output_instruction` to the prompt, and emit a ``finish-step`` between model steps, so
the final step's text is the answer alone. The core then validates that text (a Markdown
code fence around it is accepted), reports the problems in
:class:`~harness_core.agent.output.OutputValidationError`, and with
``Output(..., repair_turns=n)`` sends repair turns: nothing is enforced by the model, so a
model that does not follow the instruction gives an invalid output, never a silent one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["output_instruction", "with_output_instruction"]


def output_instruction(schema: Mapping[str, Any]) -> str:
    """The instruction asking for a final answer that is one JSON document matching ``schema``.

    Args:
        schema: the JSON Schema (``PromptRequest.output_schema``, an object schema).

    Returns:
        Text to append to the user's prompt (it quotes the schema as compact JSON).
    """
    return ("When you have finished the task, give your final answer as one JSON document and nothing else "
            "(no prose before or after it), matching this JSON Schema:\n"
            f"{json.dumps(schema, sort_keys=True, separators=(',', ':'))}")


def with_output_instruction(prompt: str, schema: Mapping[str, Any] | None) -> str:
    """``prompt`` followed by :func:`output_instruction` (a blank line between), or ``prompt`` when ``schema`` is ``None``."""
    return prompt if schema is None else f"{prompt}\n\n{output_instruction(schema)}"
