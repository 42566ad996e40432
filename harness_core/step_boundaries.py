"""Model-step boundaries for runtimes whose event stream does not report them.

Stop conditions (:mod:`harness_core.agent.stop`) are evaluated after each finished step,
which the core sees as a ``finish-step`` part. Runtimes such as the Codex app-server and ACP
agents report tool items and text but no "the model's response ended" event per step.
:class:`StepBoundaries` infers the boundary from what they do report:

* a step **made tool calls** (:meth:`call_started`) and every one of them has finished
  (:meth:`call_finished`: a result, an error or a denial);
* when the runtime signals the end of each model response (``response_signal=True``: Codex's
  token-usage update after each Responses call, say), that signal came after the step
  began (:meth:`response_done`);
* then the **next model output** (:meth:`model_output`: a text or reasoning chunk, a new
  tool call) starts the next step, and the adapter emits the ``finish-step`` part
  :meth:`model_output` returns **before** that output's parts.

So the boundary is found lazily, when the next step shows itself (the runtime already asked
its model again): the finished step's parts, results included, are all before it. A step
without tool calls is never closed here (the turn's end closes it). Known limit: a runtime
that starts a tool of step *k* only after all earlier calls finished and (with
``response_signal``) after the response ended counts that call in step *k + 1*.
"""

from __future__ import annotations

from harness_core.parts.models import FinishStepPart

__all__ = ["StepBoundaries"]


class StepBoundaries:
    """Infers where one model step ends (see the module docs).

    Args:
        response_signal: the runtime reports the end of each model response; a boundary
            then also needs :meth:`response_done` since the step began.
    """

    def __init__(self, *, response_signal: bool) -> None:
        self._response_signal = response_signal
        self._calls: set[str] = set()
        self._open: set[str] = set()
        self._response_done = False
        self.steps = 0
        """How many boundaries were emitted (finished steps with tool calls)."""

    def call_started(self, call_id: str) -> None:
        """A tool call of the current step was announced (idempotent per id)."""
        if call_id not in self._calls:
            self._calls.add(call_id)
            self._open.add(call_id)

    def call_finished(self, call_id: str) -> None:
        """A call has its final result (or error, or denial); unknown ids are ignored."""
        self._open.discard(call_id)

    def response_done(self) -> None:
        """The runtime reported the end of a model response."""
        self._response_done = True

    def due(self) -> bool:
        """True when the next model output starts a new step."""
        return bool(self._calls) and not self._open and (self._response_done or not self._response_signal)

    def model_output(self, call_id: str | None = None) -> list[FinishStepPart]:
        """The runtime produced model output (``call_id``: a tool call's id, when it is one).

        Returns ``[FinishStepPart(finish_reason="tool-calls")]`` to emit before the output's
        parts when it starts a new step (the new step then counts ``call_id``), else ``[]``.
        A call id the current step already counts never starts a step.
        """
        if call_id is not None and call_id in self._calls:
            return []
        boundary: list[FinishStepPart] = []
        if self.due():
            boundary = [FinishStepPart(finish_reason="tool-calls")]
            self.steps += 1
            self._calls, self._open, self._response_done = set(), set(), False
        if call_id is not None:
            self.call_started(call_id)
        return boundary
