"""Settings of the built-in harness: tool bounds and turn limits, with their defaults."""

from __future__ import annotations

from typing import Any, Final, Literal

import attrs

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TOOL_SETTINGS", "TurnLimits", "ToolSettings"]


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value <= 0):
        raise ValueError(f"{attribute.name} must be a positive number, got {value!r}")


@attrs.frozen(kw_only=True)
class ToolSettings:
    """Bounds of the built-in tools. Sizes are in characters or bytes as named.

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

    read_max_lines: int = attrs.field(default=2000, validator=_positive)
    read_max_line_chars: int = attrs.field(default=2000, validator=_positive)
    read_max_file_bytes: int = attrs.field(default=10 * 1024 * 1024, validator=_positive)
    bash_default_timeout: float = attrs.field(default=120.0, validator=_positive)
    bash_max_timeout: float = attrs.field(default=600.0, validator=_positive)
    bash_max_output_chars: int = attrs.field(default=30_000, validator=_positive)
    grep_max_results: int = attrs.field(default=200, validator=_positive)
    grep_max_line_chars: int = attrs.field(default=500, validator=_positive)
    grep_max_file_bytes: int = attrs.field(default=5 * 1024 * 1024, validator=_positive)
    glob_max_results: int = attrs.field(default=500, validator=_positive)
    ls_max_entries: int = attrs.field(default=1000, validator=_positive)
    walk_max_entries: int = attrs.field(default=50_000, validator=_positive)


DEFAULT_TOOL_SETTINGS: Final = ToolSettings()

OnErrorPolicy = Literal["return-to-model", "fail"]


@attrs.frozen(kw_only=True)
class TurnLimits:
    """Limits of one turn of the built-in harness. Reaching one ends the turn with
    ``finish_reason="length"`` and an error naming the limit (never silently).

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

    max_steps: int = attrs.field(default=50, validator=_positive)
    max_tool_calls: int = attrs.field(default=200, validator=_positive)
    max_turn_tokens: int | None = attrs.field(default=None, validator=_positive)
    max_output_tokens: int = attrs.field(default=8192, validator=_positive)
    tool_concurrency: int = attrs.field(default=4, validator=_positive)
    call_deadline: float = attrs.field(default=300.0, validator=_positive)
    max_repairs: int = attrs.field(default=2, validator=attrs.validators.ge(0))
    compact_threshold_tokens: int | None = attrs.field(default=120_000, validator=_positive)
    compact_keep_messages: int = attrs.field(default=6, validator=_positive)
    on_error: OnErrorPolicy = attrs.field(default="return-to-model", validator=attrs.validators.in_(("return-to-model", "fail")))


DEFAULT_LIMITS: Final = TurnLimits()
