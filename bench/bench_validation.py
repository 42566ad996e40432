"""Benchmark: HarnessTool.validate() on a small input schema.

Measures the time one ``validate()`` call takes for a 4-property schema, for valid and
invalid input, with the JSON Schema and the pydantic variants, and for arguments given as
a mapping and as JSON text. Prints microseconds per call (best of several timeit repeats).

    uv run python bench/bench_validation.py [--number N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable
from typing import Literal

import pydantic

from harness_core import ToolInputError, define_harness_tool

JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1, "maxLength": 80},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "unit": {"enum": ["C", "F"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
    },
    "required": ["city"],
    "additionalProperties": False,
}


class Forecast(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    city: str = pydantic.Field(min_length=1, max_length=80)
    days: int = pydantic.Field(default=3, ge=1, le=14)
    unit: Literal["C", "F"] = "C"
    tags: list[str] = pydantic.Field(default_factory=list, max_length=5)


VALID = {"city": "Paris", "days": 3, "unit": "C", "tags": ["rain", "wind"]}
INVALID = {"city": "", "days": True, "unit": "K", "tags": ["a", 1], "extra": 0}  # five problems


def _runner(validate: Callable[[object], object], arguments: object, expect_error: bool) -> Callable[[], None]:
    if expect_error:
        def call() -> None:
            try:
                validate(arguments)
            except ToolInputError:
                return
            raise AssertionError("invalid input was accepted")
    else:
        def call() -> None:
            validate(arguments)
    call()  # warm up, and check the case does what it says
    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--number", type=int, default=20_000, help="calls per timing run")
    parser.add_argument("--repeat", type=int, default=5, help="timing runs (the best one is reported)")
    options = parser.parse_args()

    tools = {
        "json-schema": define_harness_tool(name="forecast", description="Forecast.", input=JSON_SCHEMA),
        "pydantic": define_harness_tool(name="forecast", description="Forecast.", input=Forecast),
    }
    cases = [
        ("valid", VALID, False),
        ("valid, JSON text", json.dumps(VALID), False),
        ("invalid (5 problems)", INVALID, True),
        ("invalid, JSON text", json.dumps(INVALID), True),
    ]
    print(f"HarnessTool.validate() on a 4-property schema; best of {options.repeat} x {options.number} calls")
    print(f"{'variant':<12} {'input':<22} {'us/call':>9}")
    for variant, tool in tools.items():
        for label, arguments, expect_error in cases:
            call = _runner(tool.validate, arguments, expect_error)
            best = min(timeit.repeat(call, number=options.number, repeat=options.repeat))
            print(f"{variant:<12} {label:<22} {best / options.number * 1e6:>9.2f}")


if __name__ == "__main__":
    main()
