"""The built-in harness parses model tool arguments strictly: deep nesting and NaN are a
repair problem for the model (not a RecursionError), JSON null means no arguments."""

from __future__ import annotations

from harness_builtin.repair import RawCall, check_call

SCHEMA = {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "maximum": 10}}}


def check(arguments: str) -> tuple[object, object]:
    return check_call(RawCall("c1", "t", arguments), builtins={}, host_schemas={"t": SCHEMA}, offered=["t"])


def test_deep_nesting_is_a_problem_for_the_model() -> None:
    value, problem = check("[" * 100000)
    assert value is None and problem is not None and "nested too deeply" in problem.problem  # type: ignore[attr-defined]


def test_nan_and_infinity_are_refused() -> None:
    for text in ('{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}'):
        value, problem = check(text)
        assert value is None and problem is not None and "is not a JSON number" in problem.problem  # type: ignore[attr-defined]


def test_json_null_means_no_arguments() -> None:
    assert check("null") == ({}, None)


def test_a_host_schema_is_compiled_once() -> None:
    from harness_builtin.repair import _validator

    other = {"type": "object", "properties": {"b": {"type": "string"}}}
    assert _validator(SCHEMA) is _validator(SCHEMA)
    assert _validator(other) is not _validator(SCHEMA)
    # A problem is still found with the cached validator.
    assert check('{"n": 11}')[1] is not None and check('{"n": 5}')[1] is None
