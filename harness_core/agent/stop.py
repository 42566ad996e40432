"""Stop conditions: ``stop_when=``, evaluated after each finished step of a turn.

Like the AI SDK's ``stopWhen``: a condition is a callable receiving a :class:`StopContext`
(the turn's finished steps so far) and returning True to stop (sync or async). Helpers:
:func:`step_count_is` and :func:`has_tool_call`; several conditions stop when any matches.

The core evaluates them after every finished step after which the turn goes on (a step
that made tool calls; a step without calls ends the turn anyway). When one matches, the
current result slice ends with finish reason ``tool-calls`` and the turn is **suspended,
not finished**: the session's state is ``stopped`` (``has_unfinished_turn()`` is True, a
new prompt is refused) and ``agent.continue_stream(session=session)`` (no answers) goes on
reading the turn from where it stopped. The runtime is not interrupted: a runtime that
streams ahead keeps its events queued until the turn is continued, and
``session.abort_turn()`` ends it. Steps count over the whole turn, continuations included,
so ``step_count_is(3)`` stops again at once on a continued turn unless the condition is
changed with ``continue_stream(..., stop_when=...)``.

A condition that raises fails the slice like an adapter error would (an ``error`` part,
finish reason ``error``); it never lets the turn run on silently.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

import attrs

from harness_core.agent.collected import StepResult, collect_parts
from harness_core.errors import HarnessConfigurationError
from harness_core.parts.models import FinishStepPart, Part

__all__ = ["StopCondition", "StopContext", "StopWatch", "has_tool_call", "step_count_is", "stop_conditions"]


@attrs.frozen
class StopContext:
    """What a stop condition sees after a finished step.

    Attributes:
        steps: every finished step of the turn so far, in order (the last one just finished).
    """

    steps: tuple[StepResult, ...]


StopCondition: TypeAlias = Callable[[StopContext], "bool | Awaitable[bool]"]
"""``condition(StopContext) -> bool`` (or an awaitable of one): True stops the turn."""


def step_count_is(count: int) -> StopCondition:
    """Stop once the turn has ``count`` finished steps (``count`` >= 1).

    Raises:
        ValueError: ``count`` is not a positive int.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"step_count_is takes an int >= 1, got {count!r}")

    def condition(context: StopContext) -> bool:
        return len(context.steps) >= count

    condition.__name__ = f"step_count_is({count})"
    return condition


def has_tool_call(*names: str) -> StopCondition:
    """Stop after a step that called one of the tools ``names`` (built-in or host names).

    Raises:
        ValueError: no name given.
    """
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError("has_tool_call takes one or more tool names")
    wanted = frozenset(names)

    def condition(context: StopContext) -> bool:
        return bool(context.steps) and any(c.tool_name in wanted for c in context.steps[-1].tool_calls)

    condition.__name__ = f"has_tool_call({', '.join(map(repr, names))})"
    return condition


def stop_conditions(value: object) -> tuple[StopCondition, ...]:
    """``stop_when=`` as a tuple: ``None``, one callable, or a sequence of callables.

    Raises:
        HarnessConfigurationError: something that is not a callable.
    """
    if value is None:
        return ()
    items: Sequence[object] = value if isinstance(value, Sequence) and not isinstance(value, str) else (value,)
    for item in items:
        if not callable(item):
            raise HarnessConfigurationError(
                f"stop_when= takes a callable (StopContext) -> bool or a list of them, got {type(item).__name__}")
    return tuple(items)  # type: ignore[arg-type]


class StopWatch:
    """The stop conditions of one turn: watches its parts, evaluates after finished steps.

    Args:
        conditions: the turn's conditions (may be empty: never stops).
    """

    def __init__(self, conditions: Sequence[StopCondition]) -> None:
        self.conditions = tuple(conditions)
        self._parts: list[Part] = []
        self._step_ended = False
        self.matched: str | None = None
        """The name of the condition that stopped the turn last, or ``None``."""

    def observe(self, part: Part) -> None:
        """Record a part the consumer receives (called for each part of each slice)."""
        if not self.conditions:
            return
        self._parts.append(part)
        if isinstance(part, FinishStepPart) and part.finish_reason not in ("awaiting-approval",
                                                                            "awaiting-tool-result"):
            self._step_ended = True

    @property
    def step_ended(self) -> bool:
        """True when a finished step waits to be evaluated by :meth:`should_stop` (a cheap
        test before awaiting it, once per event)."""
        return self._step_ended

    async def should_stop(self) -> bool:
        """After a finished step that made tool calls: True when a condition matches.

        Raises whatever a condition raises.
        """
        if not self._step_ended:
            return False
        self._step_ended = False
        steps = tuple(s for s in collect_parts(self._parts).steps if s.finish_reason != "unknown")
        if not steps or not steps[-1].tool_calls:
            return False
        context = StopContext(steps=steps)
        for condition in self.conditions:
            verdict = condition(context)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict:
                self.matched = getattr(condition, "__name__", repr(condition))
                return True
        return False

    def replace(self, conditions: Sequence[StopCondition]) -> None:
        """Use other conditions from now on (a continuation's ``stop_when=``)."""
        self.conditions = tuple(conditions)
