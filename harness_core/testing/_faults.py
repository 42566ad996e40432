"""Fault injection: HTTP errors, cut streams, dropped events, delays."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["Fault", "FaultPlan", "plan_faults"]


class Fault(BaseModel):
    """A fault injected into chosen model calls.

    ``at`` lists the model-call indices it applies to (0-based over every POST to
    a model endpoint, side requests and retries included; an int means one
    index). Effects:

    - ``status`` (400-599): answer with that HTTP status and a provider-shaped
      error body (``error_type`` and ``message`` override the defaults;
      ``retry_after`` adds a ``retry-after`` header). Excludes the stream faults.
    - ``cut_after_events``: send that many events, then half of the next one,
      then close the connection without ending the body. On a non-streaming
      request the JSON body is cut in half instead.
    - ``drop_events``: leave out events, by label (the Anthropic and Responses
      event ``type``, e.g. ``"content_block_stop"``, ``"response.completed"``;
      for Chat Completions ``"role"``, ``"reasoning"``, ``"content"``,
      ``"tool_call"``, ``"finish"``, ``"usage"``, ``"[DONE]"``) or by position.
    - ``error_event_after``: after that many events, send the provider's
      in-stream error event and end the stream.
    - ``delay`` seconds before answering; ``event_delay`` seconds between events.

    Raises ``pydantic.ValidationError`` when no effect is set or ``status`` is
    combined with a stream fault.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: tuple[int, ...] = Field(min_length=1)
    status: int | None = Field(default=None, ge=400, le=599)
    error_type: str | None = None
    message: str | None = None
    retry_after: float | None = Field(default=None, ge=0)
    cut_after_events: int | None = Field(default=None, ge=0)
    drop_events: tuple[str | int, ...] = ()
    error_event_after: int | None = Field(default=None, ge=0)
    delay: float = Field(default=0.0, ge=0)
    event_delay: float = Field(default=0.0, ge=0)

    @field_validator("at", mode="before")
    @classmethod
    def _one_index(cls, value: Any) -> Any:
        return (value,) if isinstance(value, int) else value

    @field_validator("at")
    @classmethod
    def _non_negative(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if any(index < 0 for index in value):
            raise ValueError("model-call indices start at 0")
        return value

    @model_validator(mode="after")
    def _check_effects(self) -> Fault:
        stream = (
            self.cut_after_events is not None
            or bool(self.drop_events)
            or self.error_event_after is not None
        )
        if self.status is not None and stream:
            raise ValueError(
                "status cannot be combined with cut_after_events, drop_events or error_event_after"
            )
        if self.status is None and not stream and not self.delay and not self.event_delay:
            raise ValueError(
                "a fault needs an effect: status, cut_after_events, drop_events, "
                "error_event_after, delay or event_delay"
            )
        return self

    @classmethod
    def http_error(
        cls,
        status: int,
        *,
        at: int | Iterable[int] = 0,
        error_type: str | None = None,
        message: str | None = None,
        retry_after: float | None = None,
    ) -> Fault:
        """Answer the calls ``at`` with HTTP ``status`` and a provider-shaped error body."""
        return cls(
            at=_indices(at),
            status=status,
            error_type=error_type,
            message=message,
            retry_after=retry_after,
        )

    @classmethod
    def cut_stream(cls, after_events: int, *, at: int | Iterable[int] = 0) -> Fault:
        """Cut the calls ``at`` off in the middle of event ``after_events`` (0-based)."""
        return cls(at=_indices(at), cut_after_events=after_events)

    @classmethod
    def drop(cls, *events: str | int, at: int | Iterable[int] = 0) -> Fault:
        """Leave the given event labels or positions out of the calls ``at``."""
        return cls(at=_indices(at), drop_events=events)

    @classmethod
    def stream_error(cls, after_events: int, *, at: int | Iterable[int] = 0) -> Fault:
        """Send the provider's in-stream error event after ``after_events`` events."""
        return cls(at=_indices(at), error_event_after=after_events)

    @classmethod
    def slow(
        cls, delay: float = 0.0, *, event_delay: float = 0.0, at: int | Iterable[int] = 0
    ) -> Fault:
        """Wait ``delay`` seconds before answering and ``event_delay`` between events."""
        return cls(at=_indices(at), delay=delay, event_delay=event_delay)


def _indices(at: int | Iterable[int]) -> tuple[int, ...]:
    return (at,) if isinstance(at, int) else tuple(at)


@dataclass(frozen=True)
class FaultPlan:
    """The faults for one model call, merged.

    The first ``status`` wins (with its type, message and retry-after), drops
    add up, the earliest cut and error event win, delays add up.
    """

    status: int | None = None
    error_type: str | None = None
    message: str | None = None
    retry_after: float | None = None
    cut_after_events: int | None = None
    drop_events: frozenset[str | int] = frozenset()
    error_event_after: int | None = None
    delay: float = 0.0
    event_delay: float = 0.0

    def drops(self, position: int, label: str) -> bool:
        """True when the event at ``position`` with ``label`` is to be left out."""
        return position in self.drop_events or label in self.drop_events


def _earliest(first: int | None, second: int | None) -> int | None:
    if first is None:
        return second
    if second is None:
        return first
    return min(first, second)


def plan_faults(faults: Iterable[Fault], index: int) -> FaultPlan:
    """Merge every fault that applies to model call ``index`` into one plan."""
    plan = FaultPlan()
    for fault in faults:
        if index not in fault.at:
            continue
        status_source = plan if plan.status is not None else fault
        plan = FaultPlan(
            status=status_source.status,
            error_type=status_source.error_type,
            message=status_source.message,
            retry_after=status_source.retry_after,
            cut_after_events=_earliest(plan.cut_after_events, fault.cut_after_events),
            drop_events=plan.drop_events | frozenset(fault.drop_events),
            error_event_after=_earliest(plan.error_event_after, fault.error_event_after),
            delay=plan.delay + fault.delay,
            event_delay=plan.event_delay + fault.event_delay,
        )
    return plan
