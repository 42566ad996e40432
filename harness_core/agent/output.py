"""Structured output: the ``output=`` setting, its validation, partial outputs, repair turns.

``HarnessAgent(output=Model)`` (or ``output=`` per call) asks the runtime for a final answer
that is one JSON document matching a schema:

* :class:`Output` holds the schema: a pydantic model class or a JSON Schema object (the
  tool-input subset of :mod:`harness_core.tools.schema`; the top level is an object);
* the schema reaches the adapter as :attr:`PromptRequest.output_schema
  <harness_core.adapter.PromptRequest.output_schema>`; **the adapter's contract** is that the
  turn's last step then carries the answer as its text, the JSON document and nothing else
  (each adapter maps it to its runtime: a final-answer tool, ``--json-schema``,
  ``outputSchema``...);
* the core validates that text into :attr:`GenerateResult.output
  <harness_core.agent.collected.GenerateResult.output>` (a model instance or a ``dict``);
  an answer that is missing, not JSON or not matching the schema makes ``output`` raise
  :class:`OutputValidationError`, listing each problem with its JSON path;
* with ``Output(..., repair_turns=n)``, ``generate()`` and ``run()`` send up to ``n``
  repair prompts in the same session (the problems, and the request to answer again) before
  giving up;
* :func:`partial_outputs` turns the text deltas of a stream into partial values
  (``StreamResult.partial_output_stream``), parsed with pydantic-core's partial JSON mode.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import attrs
import pydantic
import pydantic_core

from harness_core.errors import (
    HarnessConfigurationError,
    HarnessError,
    ToolDefinitionError,
    ToolInputError,
)
from harness_core.parts.models import FinishReason, Part, StartStepPart, TextDeltaPart
from harness_core.tools.schema import ToolInputSchema, compile_input_schema

__all__ = [
    "Output",
    "OutputSetting",
    "OutputValidationError",
    "StructuredOutput",
    "partial_outputs",
    "repair_prompt",
]


class OutputValidationError(HarnessError, ValueError):
    """The turn's final answer is not a valid structured output.

    Attributes:
        text: the final step's text that was checked ("" when there was none).
        problems: ``(json_path, message)`` pairs (``("$", ...)`` for a missing or non-JSON answer).
        finish_reason: how the slice ended.
    """

    def __init__(self, text: str, problems: list[tuple[str, str]], finish_reason: FinishReason) -> None:
        self.text = text
        self.problems = tuple(problems)
        self.finish_reason = finish_reason
        lines = "; ".join(f"{path}: {message}" for path, message in self.problems)
        shown = text if len(text) <= 200 else text[:200] + "..."
        super().__init__(f"the final answer is not a valid structured output ({lines}); "
                         f"finish reason {finish_reason!r}, answer text: {shown!r}")


@attrs.frozen
class Output:
    """A structured-output request: what the final answer must be.

    Build one with :meth:`of` (``output=`` accepts a model class or a JSON Schema too).

    Attributes:
        schema: the compiled schema (``schema.json_schema`` is what runtimes receive).
        name: a short name for runtimes that want one (the model's name, else ``"output"``).
        repair_turns: how many repair prompts ``generate()`` / ``run()`` send when the
            answer does not validate (0: none, ``output`` raises).
    """

    schema: ToolInputSchema
    name: str = "output"
    repair_turns: int = 0

    @classmethod
    def of(cls, value: object, *, repair_turns: int = 0, name: str | None = None) -> Output:
        """An :class:`Output` from a pydantic model class, a JSON Schema mapping, or an Output.

        Raises:
            HarnessConfigurationError: an unusable schema (the message names the problem),
                a negative ``repair_turns``, or another type.
        """
        if isinstance(value, Output):
            return value
        if isinstance(repair_turns, bool) or not isinstance(repair_turns, int) or repair_turns < 0:
            raise HarnessConfigurationError(f"output repair_turns must be an int >= 0, got {repair_turns!r}")
        is_model = isinstance(value, type) and issubclass(value, pydantic.BaseModel)
        if not is_model and not isinstance(value, Mapping):
            raise HarnessConfigurationError(
                f"output= takes a pydantic model class, a JSON Schema object or an Output, got {type(value).__name__}")
        try:
            schema = compile_input_schema("output", value)
        except ToolDefinitionError as exc:
            raise HarnessConfigurationError(f"output=: {exc}") from None
        default = value.__name__ if is_model and isinstance(value, type) else str(schema.json_schema.get("title", "output"))
        return cls(schema=schema, name=_name(name or default), repair_turns=repair_turns)

    @property
    def json_schema(self) -> dict[str, Any]:
        """A mutable copy of the JSON Schema sent to runtimes."""
        return dict(self.schema.json_schema.to_json())

    def to_state(self) -> dict[str, Any]:
        """``{"json_schema", "name", "repair_turns"}``: the ``output`` entry of suspended
        turn state (:mod:`harness_core.agent.state`); the pydantic model itself is not kept."""
        return {"json_schema": self.json_schema, "name": self.name, "repair_turns": self.repair_turns}

    def parse(self, text: str, finish_reason: FinishReason = "stop") -> Any:
        """Validate the final answer ``text``: a model instance, or a ``dict`` for JSON Schemas.

        Raises:
            OutputValidationError: no answer, not JSON, or not matching the schema.
        """
        if finish_reason != "stop":
            raise OutputValidationError(text, [("$", f"the turn did not finish with an answer ({finish_reason})")],
                                        finish_reason)
        stripped = _strip_fence(text)
        if not stripped:
            raise OutputValidationError(text, [("$", "the final step has no text")], finish_reason)
        try:
            value = json.loads(stripped)
        except ValueError as exc:
            raise OutputValidationError(text, [("$", f"not JSON: {exc}")], finish_reason) from None
        try:
            return self.schema.validate("output", value)
        except ToolInputError as exc:
            raise OutputValidationError(text, list(exc.problems), finish_reason) from None


OutputSetting = Output | type[pydantic.BaseModel] | Mapping[str, Any]
"""What ``output=`` accepts."""


def _name(value: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in value)[:64]
    return cleaned or "output"


def _strip_fence(text: str) -> str:
    """The text without surrounding blanks and one Markdown code fence (```json ... ```)."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) > 6:
        body = stripped[3:-3]
        first_line, _, rest = body.partition("\n")
        stripped = (rest if first_line.strip().isalpha() or not first_line.strip() else body).strip()
    return stripped


@attrs.frozen
class StructuredOutput:
    """The structured output of a collected slice: its value, or why there is none.

    Attributes:
        spec: the requested output.
        value: the validated value (``None`` when ``error`` is set).
        error: why the answer is not valid, else ``None``.
    """

    spec: Output
    value: Any = None
    error: OutputValidationError | None = None

    @classmethod
    def check(cls, spec: Output, text: str, finish_reason: FinishReason) -> StructuredOutput:
        """Validate ``text`` (the last step's text) against ``spec``; never raises."""
        try:
            return cls(spec, spec.parse(text, finish_reason))
        except OutputValidationError as exc:
            return cls(spec, None, exc)

    def get(self) -> Any:
        """The value. Raises :class:`OutputValidationError` when the answer is not valid."""
        if self.error is not None:
            raise self.error
        return self.value


def repair_prompt(error: OutputValidationError, spec: Output) -> str:
    """The user message of a repair turn: the problems and the schema, asking for JSON only."""
    problems = "\n".join(f"- {path}: {message}" for path, message in error.problems)
    return (
        "Your final answer did not match the required output schema:\n"
        f"{problems}\n"
        "Answer again with only the JSON document, matching this JSON Schema:\n"
        f"{json.dumps(spec.json_schema, sort_keys=True)}"
    )


async def partial_outputs(parts: AsyncIterator[Part]) -> AsyncIterator[Any]:
    """Partial values of the structured answer as its text streams in.

    Parses the current step's text after every text delta with pydantic-core's partial JSON
    mode (unfinished strings included) and yields each new value that differs from the
    last one; a new step starts again from empty text. The values are not validated: the
    final, validated one is ``GenerateResult.output``.
    """
    text = ""
    last: Any = None
    seen = False
    async for part in parts:
        if isinstance(part, StartStepPart):
            text = ""
            continue
        if not isinstance(part, TextDeltaPart):
            continue
        text += part.text
        candidate = text.strip()
        if candidate.startswith("```"):  # a fenced answer: drop the fence line (and a closing fence)
            candidate = candidate.partition("\n")[2].strip().removesuffix("```").strip()
        if not candidate:
            continue
        try:
            value = pydantic_core.from_json(candidate, allow_partial="trailing-strings")
        except ValueError:
            continue
        if not seen or value != last:
            seen, last = True, value
            yield value
