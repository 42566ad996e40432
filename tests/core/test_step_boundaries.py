"""StepBoundaries: inferred model-step ends for runtimes without step events."""

from __future__ import annotations

from harness_core import FinishStepPart, StepBoundaries


def test_a_step_ends_at_the_next_output_once_its_calls_finished_and_the_response_ended() -> None:
    steps = StepBoundaries(response_signal=True)
    assert steps.model_output() == []  # text before any call: same step
    assert steps.model_output("a") == [] and steps.model_output("b") == []
    steps.call_finished("a")
    steps.response_done()
    assert steps.model_output("a") == []  # a known call never opens a step
    assert not steps.due() and steps.model_output() == []  # "b" still runs: no boundary
    steps.call_finished("b")
    assert steps.due()
    (boundary,) = steps.model_output("c")
    assert isinstance(boundary, FinishStepPart) and boundary.finish_reason == "tool-calls"
    assert steps.steps == 1
    steps.call_finished("c")
    assert not steps.due()  # the new step's response has not ended yet
    steps.response_done()
    assert len(steps.model_output()) == 1 and steps.steps == 2


def test_without_a_response_signal_finished_calls_end_the_step() -> None:
    steps = StepBoundaries(response_signal=False)
    steps.response_done()
    assert steps.model_output() == [] and not steps.due()  # no calls: never closed here
    steps.model_output("a")
    steps.call_finished("unknown")
    assert not steps.due()
    steps.call_finished("a")
    assert len(steps.model_output()) == 1
