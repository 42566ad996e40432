"""Structured output by instruction: the prompt text runtimes without a schema option get."""

from __future__ import annotations

import json

import pydantic

from harness_core import Output, output_instruction, with_output_instruction


class Answer(pydantic.BaseModel):
    n: int


def test_the_instruction_quotes_the_schema_and_asks_for_json_only() -> None:
    schema = Output.of(Answer).json_schema
    text = output_instruction(schema)
    assert "one JSON document and nothing else" in text
    assert json.loads(text.splitlines()[-1]) == schema


def test_the_prompt_is_unchanged_without_a_schema() -> None:
    assert with_output_instruction("How many?", None) == "How many?"
    combined = with_output_instruction("How many?", {"type": "object"})
    assert combined.startswith("How many?\n\n") and combined.endswith('{"type":"object"}')
