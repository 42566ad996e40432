"""Settings of the built-in harness: tool bounds and turn limits, with their defaults.

Every setting is checked when it is given (type and range), so a wrong value fails at
construction with a :class:`~harness_core.errors.HarnessConfigurationError` (a
``ValueError``) naming the setting, never later in the middle of a turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import attrs

from harness_core import HarnessConfigurationError

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TOOL_SETTINGS",
    "ToolSettings",
    "TurnLimits",
    "setting_error",
    "tool_settings_from",
]


def setting_error(name: str, expected: str, value: Any) -> HarnessConfigurationError:
    """The error for a built-in harness setting with a wrong type or value.

    Example message: ``builtin harness setting 'max_steps' must be a positive integer,
    got 'abc' (str)``.
    """
    return HarnessConfigurationError(
        f"builtin harness setting {name!r} must be {expected}, got {value!r} ({type(value).__name__})"
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _check(test: Callable[[Any], bool], expected: str, *, optional: bool = False) -> Validator:
    def validate(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if optional and value is None:
            return
        if not test(value):
            raise setting_error(attribute.name, expected + (" or None" if optional else ""), value)

    return validate


_positive = _check(lambda v: _is_number(v) and v > 0, "a positive number (seconds)")
_positive_int = _check(lambda v: _is_int(v) and v > 0, "a positive integer")
_optional_positive_int = _check(lambda v: _is_int(v) and v > 0, "a positive integer", optional=True)
_non_negative_int = _check(lambda v: _is_int(v) and v >= 0, "an integer >= 0")


@attrs.frozen(kw_only=True)
class ToolSettings:
    """Bounds of the built-in tools. Sizes are in characters or bytes as named.

    Counts and sizes are positive integers, timeouts positive numbers of seconds.

    Raises:
        HarnessConfigurationError: a field with a wrong type or value (naming it).

    Attributes:
        read_max_lines: lines ``read`` returns when no ``limit`` is given (2000).
        read_max_line_chars: longer lines are cut (2000 characters).
        read_max_file_bytes: larger files are refused by ``read`` and ``edit`` (10 MiB).
        bash_default_timeout: seconds a ``bash`` call may run without a ``timeout`` (120).
        bash_max_timeout: the largest ``timeout`` a call may ask for (600 s).
        bash_max_output_chars: stdout plus stderr the model sees; the middle is cut (30000).
        grep_max_results: matching lines ``grep`` returns without ``max_results`` (200).
        grep_max_line_chars: matching lines are cut at this length (500).
        grep_max_file_bytes: larger files are skipped by ``grep`` (5 MiB).
        glob_max_results: paths ``glob`` returns (500).
        ls_max_entries: entries ``ls`` returns (1000).
        walk_max_entries: directory entries a search visits before it stops (50000).
    """

    read_max_lines: int = attrs.field(default=2000, validator=_positive_int)
    read_max_line_chars: int = attrs.field(default=2000, validator=_positive_int)
    read_max_file_bytes: int = attrs.field(default=10 * 1024 * 1024, validator=_positive_int)
    bash_default_timeout: float = attrs.field(default=120.0, validator=_positive)
    bash_max_timeout: float = attrs.field(default=600.0, validator=_positive)
    bash_max_output_chars: int = attrs.field(default=30_000, validator=_positive_int)
    grep_max_results: int = attrs.field(default=200, validator=_positive_int)
    grep_max_line_chars: int = attrs.field(default=500, validator=_positive_int)
    grep_max_file_bytes: int = attrs.field(default=5 * 1024 * 1024, validator=_positive_int)
    glob_max_results: int = attrs.field(default=500, validator=_positive_int)
    ls_max_entries: int = attrs.field(default=1000, validator=_positive_int)
    walk_max_entries: int = attrs.field(default=50_000, validator=_positive_int)


DEFAULT_TOOL_SETTINGS: Final = ToolSettings()


def tool_settings_from(value: Any) -> ToolSettings:
    """``value`` as :class:`ToolSettings`: one already, or a mapping of its fields
    (``{"bash_max_timeout": 60}``; the others keep their defaults).

    Raises:
        HarnessConfigurationError: another type, an unknown field (the message lists the
            known ones), or a field with a wrong value.
    """
    if isinstance(value, ToolSettings):
        return value
    if not isinstance(value, Mapping):
        raise setting_error("tool_settings", "a ToolSettings or a mapping of its fields", value)
    known = [field.name for field in attrs.fields(ToolSettings)]
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        raise HarnessConfigurationError(
            f"builtin harness setting 'tool_settings' has unknown field(s) {', '.join(unknown)} "
            f"(known: {', '.join(known)})"
        )
    return ToolSettings(**{str(key): item for key, item in value.items()})


OnErrorPolicy = Literal["return-to-model", "fail"]


@attrs.frozen(kw_only=True)
class TurnLimits:
    """Limits of one turn of the built-in harness. Reaching one ends the turn with
    ``finish_reason="length"`` and an error naming the limit (never silently).

    Raises:
        HarnessConfigurationError: a field with a wrong type or value (naming it).

    Attributes:
        max_steps: model calls per turn (50).
        max_tool_calls: tool calls per turn, built-in and host (200).
        max_turn_tokens: input plus output tokens over the turn's model calls, or ``None``
            for no limit (``None``).
        max_output_tokens: tokens one model response may produce, sent to the provider
            (8192).
        tool_concurrency: read-only calls run in parallel up to this many (4).
        call_deadline: seconds one built-in call may take before it becomes an error
            result (300).
        max_repairs: consecutive repair turns for unusable responses before the turn
            fails (2).
        compact_threshold_tokens: estimated conversation tokens above which older turns
            are summarized before the next model call, or ``None`` to never compact
            automatically (120000).
        compact_keep_messages: recent messages kept verbatim by compaction (6).
        on_error: a built-in tool that raises unexpectedly: ``"return-to-model"`` sends
            the error as the call's result, ``"fail"`` ends the turn with an error.
    """

    max_steps: int = attrs.field(default=50, validator=_positive_int)
    max_tool_calls: int = attrs.field(default=200, validator=_positive_int)
    max_turn_tokens: int | None = attrs.field(default=None, validator=_optional_positive_int)
    max_output_tokens: int = attrs.field(default=8192, validator=_positive_int)
    tool_concurrency: int = attrs.field(default=4, validator=_positive_int)
    call_deadline: float = attrs.field(default=300.0, validator=_positive)
    max_repairs: int = attrs.field(default=2, validator=_non_negative_int)
    compact_threshold_tokens: int | None = attrs.field(default=120_000, validator=_optional_positive_int)
    compact_keep_messages: int = attrs.field(default=6, validator=_positive_int)
    on_error: OnErrorPolicy = attrs.field(
        default="return-to-model",
        validator=_check(lambda v: v in ("return-to-model", "fail"), "'return-to-model' or 'fail'"),
    )


DEFAULT_LIMITS: Final = TurnLimits()
