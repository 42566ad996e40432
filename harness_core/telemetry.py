"""Opt-in OpenTelemetry spans: ``HarnessAgent(telemetry=Telemetry(...))`` (or ``True``).

The core makes the spans from the turn's stream parts, so every adapter gets the same
ones (``opentelemetry-api`` only: the application installs and configures the SDK; without
one, the API's no-op tracer is used). Spans, with their attributes:

* ``harness.turn``: one per turn, from its prompt to its ``finish``. A turn that pauses
  (approval, client-side result) or is stopped by ``stop_when`` keeps its span open across
  result slices; a turn suspended into JSON state and continued in another process gets a
  ``harness.turn`` span there whose parent is the suspended turn's span (the state carries
  its W3C ``traceparent``), so the trace stays whole. ``harness.id``, ``harness.session_id``,
  ``harness.turn.finish_reason``, ``gen_ai.usage.input_tokens`` / ``output_tokens``.
* ``harness.step``: one per model step (``start-step`` .. ``finish-step``), child of the
  turn: ``harness.step.index``, ``harness.step.finish_reason`` and the step's usage.
* ``harness.tool_call``: one per tool call, built-in or host, child of the step it was made
  in: ``harness.tool.name``, ``harness.tool.call_id``, ``harness.tool.executor``
  (``runtime`` for built-ins, ``host``), ``harness.tool.decision`` (``approved`` /
  ``denied``, ``automatic`` when no person was asked), ``harness.tool.outcome`` (``result`` /
  ``error`` / ``denied``); an error sets the span status.

Tool input and output stay out of attributes unless ``record_content=True`` (then
``harness.tool.input`` / ``harness.tool.output``, JSON, cut at ``max_content_chars``).
"""

from __future__ import annotations

from typing import Any

import attrs

from harness_core.errors import HarnessConfigurationError

__all__ = ["Telemetry", "parse_telemetry"]

INSTRUMENTATION_NAME = "harness_core"


@attrs.frozen(kw_only=True)
class Telemetry:
    """How the agent traces its turns (see the module docs).

    Attributes:
        tracer: an OpenTelemetry ``Tracer``; ``None`` takes ``trace.get_tracer("harness_core")``
            from the global tracer provider.
        record_content: put tool input and output in span attributes (off: they may hold secrets).
        max_content_chars: the longest recorded input or output (characters).
    """

    tracer: Any = None
    record_content: bool = False
    max_content_chars: int = 4096

    def get_tracer(self) -> Any:
        """The tracer to use.

        Raises:
            HarnessConfigurationError: ``opentelemetry-api`` is not installed.
        """
        if self.tracer is not None:
            return self.tracer
        try:
            from opentelemetry import trace
        except ImportError as error:  # pragma: no cover - the API is a declared extra
            raise HarnessConfigurationError(
                "telemetry= needs opentelemetry-api (install harness-agent-core[telemetry])") from error
        return trace.get_tracer(INSTRUMENTATION_NAME)


def parse_telemetry(value: object) -> Telemetry | None:
    """``HarnessAgent(telemetry=...)``: ``None``/``False`` (off), ``True`` or a :class:`Telemetry`.

    Raises:
        HarnessConfigurationError: another value, or opentelemetry-api is missing.
    """
    if value is None or value is False:
        return None
    telemetry = Telemetry() if value is True else value
    if not isinstance(telemetry, Telemetry):
        raise HarnessConfigurationError(f"telemetry must be True, False or a Telemetry, got {type(value).__name__}")
    telemetry.get_tracer()
    return telemetry
