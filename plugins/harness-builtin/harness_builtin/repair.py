"""Response repair: checking a model response's tool calls, and the note that tells the
model what was wrong.

A response is unusable when a call's arguments are not a JSON object, a call names a tool
that is not offered, or its arguments break the tool's input schema. The harness then
runs a *repair turn*: the response's tool calls are dropped (never replayed into later
requests), a note listing every problem is sent as the next user message, and that one
model call offers only read-only tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import attrs
import jsonschema

from harness_core import HarnessTool, ToolInputError, schema_checker

__all__ = ["CallProblem", "RawCall", "check_call", "repair_note"]

_SHOWN_ARGUMENTS = 300


@attrs.frozen
class RawCall:
    """A tool call as the model streamed it: id, name, argument text."""

    call_id: str
    name: str
    arguments: str


@attrs.frozen
class CallProblem:
    """Why one call cannot be used, in words meant for the model."""

    call_id: str
    name: str
    problem: str


_Compiled = tuple[Mapping[str, Any], "jsonschema.Draft202012Validator", Callable[[Any], bool] | None]
_VALIDATORS: dict[int, _Compiled] = {}
"""Compiled validators by ``id(schema)``, each kept with its schema (so an id is never reused)."""
_MAX_VALIDATORS = 256


def _validator(schema: Mapping[str, Any]) -> _Compiled:
    """The validator of ``schema`` and its compiled yes/no check (``None`` when the schema
    leaves the core's subset), made once per schema object (a session's host tool schemas
    are the same objects on every call)."""
    entry = _VALIDATORS.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry
    if len(_VALIDATORS) >= _MAX_VALIDATORS:
        _VALIDATORS.clear()
    entry = (schema, jsonschema.Draft202012Validator(schema), schema_checker(schema))
    _VALIDATORS[id(schema)] = entry
    return entry


def _validate_host(schema: Mapping[str, Any], arguments: dict[str, Any]) -> list[str]:
    """The problems of ``arguments`` under ``schema`` (none: usable). A valid call costs the
    compiled check only; jsonschema runs for a schema outside the subset, or to word the
    problems of an invalid call (the repair path)."""
    try:
        _, validator, check = _validator(schema)
        if check is not None and check(arguments):
            return []
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except jsonschema.SchemaError:
        return []
    except RecursionError:
        return ["$: the arguments are nested too deeply"]
    problems = []
    for error in errors:
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        problems.append(f"{path}: {error.message}")
    return problems


def check_call(
    call: RawCall,
    *,
    builtins: Mapping[str, HarnessTool],
    host_schemas: Mapping[str, Mapping[str, Any]],
    offered: Sequence[str],
    refusable: Collection[str] = (),
) -> tuple[Any, CallProblem | None]:
    """Parse and validate one call.

    Args:
        call: the streamed call.
        builtins: the built-in tools by name (validated with their schemas).
        host_schemas: host tools' JSON Schemas by name (validated with ``jsonschema``).
        offered: the tool names this model call offered.
        refusable: names not offered whose calls are refused later rather than repaired
            (inactive built-ins).

    Returns:
        ``(validated input, None)`` when usable (a ``dict``), else ``(None, problem)``.
    """
    shown = call.arguments if len(call.arguments) <= _SHOWN_ARGUMENTS else call.arguments[:_SHOWN_ARGUMENTS] + "..."
    if call.name not in offered and call.name not in refusable:
        listed = ", ".join(offered) or "none"
        return None, CallProblem(call.call_id, call.name, f"there is no tool named {call.name!r} here (available: {listed})")
    text = call.arguments.strip() or "{}"
    try:
        arguments = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return None, CallProblem(
            call.call_id, call.name,
            f"the arguments are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); you sent: {shown}",
        )
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, CallProblem(call.call_id, call.name, f"the arguments are not valid JSON ({why}); you sent: {shown}")
    if arguments is None:  # JSON null: no arguments
        arguments = {}
    if not isinstance(arguments, dict):
        return None, CallProblem(
            call.call_id, call.name, f"the arguments must be a JSON object, not {type(arguments).__name__}: {shown}"
        )
    tool = builtins.get(call.name)
    if tool is not None:
        try:
            return tool.validate(arguments), None
        except ToolInputError as exc:
            details = "; ".join(f"{path}: {message}" for path, message in exc.problems)
            return None, CallProblem(call.call_id, call.name, f"invalid arguments: {details}")
    schema = host_schemas.get(call.name)
    if schema is not None:
        problems = _validate_host(schema, arguments)
        if problems:
            return None, CallProblem(call.call_id, call.name, "invalid arguments: " + "; ".join(problems))
    return arguments, None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def repair_note(problems: Sequence[CallProblem], read_only_tools: Sequence[str]) -> str:
    """The user message of a repair turn: what was wrong with each call, and what now."""
    lines = ["Your previous response could not be used, so none of its tool calls ran:"]
    lines.extend(f"- call {p.call_id} to {p.name!r}: {p.problem}" for p in problems)
    available = ", ".join(read_only_tools) if read_only_tools else "none"
    lines.append(
        f"In this reply only read-only tools are available ({available}); use them if you need to check "
        "something. After this reply every tool is available again, so you can then make the corrected "
        "call(s) with valid JSON arguments that match the tool's schema."
    )
    return "\n".join(lines)
