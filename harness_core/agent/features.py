"""The agent features a call can set: structured output, stop conditions, plan mode.

:class:`AgentFeatures` holds the agent-level defaults (``HarnessAgent(output=...,
stop_when=..., mode=...)``) and the adapter's capability table, and checks each setting
against it when it is made: at agent construction for the defaults, when ``stream()`` /
``generate()`` is called for per-call values, so an unsupported feature raises
:class:`~harness_core.errors.HarnessCapabilityUnsupportedError` with the adapter's reason
before anything runs. :class:`CallFeatures` is what one call asks for; :class:`TurnFeatures`
what the session keeps for the turn across its result slices.

New features (skills, steering, telemetry) add their setting here and their flag to
:class:`~harness_core.capabilities.Capability`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeAlias

import attrs

from harness_core.agent.collected import GenerateResult
from harness_core.agent.output import Output, OutputSetting, StructuredOutput, repair_prompt
from harness_core.agent.stop import StopCondition, StopWatch, stop_conditions
from harness_core.agent.tracing import TurnTrace
from harness_core.capabilities import Capability, HarnessCapabilities
from harness_core.errors import HarnessConfigurationError
from harness_core.skills import parse_skills
from harness_core.telemetry import parse_telemetry

__all__ = ["AgentFeatures", "AgentMode", "CallFeatures", "TurnFeatures", "generate_with_repairs", "parse_mode"]

AgentMode: TypeAlias = Literal["default", "plan"]
"""``default`` (the runtime may act) or ``plan`` (it plans without editing)."""

_MODES: tuple[AgentMode, ...] = ("default", "plan")


def parse_mode(value: object) -> AgentMode:
    """``"default"`` or ``"plan"``.

    Raises:
        HarnessConfigurationError: any other value.
    """
    if value not in _MODES:
        raise HarnessConfigurationError(f"mode must be 'default' or 'plan', got {value!r}")
    return value


@attrs.frozen
class CallFeatures:
    """What one call asks for (after the agent's defaults were applied).

    Attributes:
        output: the structured output requested, or ``None``.
        stop_when: the stop conditions (empty: never stop early).
        mode: ``default`` or ``plan``.
        stop_when_given: the call set ``stop_when`` itself (a continuation replaces the
            turn's conditions only then).
        output_given: the call set ``output`` itself (a continuation then validates the
            answer with it: see :meth:`TurnFeatures.check_continuation`).
    """

    output: Output | None = None
    stop_when: tuple[StopCondition, ...] = ()
    mode: AgentMode = "default"
    stop_when_given: bool = False
    output_given: bool = False


@attrs.define
class TurnFeatures:
    """What the session keeps for its current turn, across result slices.

    Attributes:
        output: the turn's structured output request, or ``None``.
        watch: the turn's stop conditions.
        mode: the turn's mode.
        trace: the turn's spans with telemetry (:mod:`harness_core.agent.tracing`), else ``None``.
    """

    output: Output | None
    watch: StopWatch
    mode: AgentMode
    trace: TurnTrace | None = None

    @classmethod
    def start(cls, call: CallFeatures) -> TurnFeatures:
        """The features of a new turn started by ``call``."""
        return cls(output=call.output, watch=StopWatch(call.stop_when), mode=call.mode)

    def continue_with(self, call: CallFeatures) -> None:
        """A continuation: its ``stop_when``, when it gave one, replaces the turn's; its
        ``output`` (already checked by :meth:`check_continuation`) validates the answer."""
        if call.stop_when_given:
            self.watch.replace(call.stop_when)
        if call.output_given and call.output is not None:
            self.output = call.output

    def check_continuation(self, call: CallFeatures) -> None:
        """Refuse a continuation's ``output=`` that is not the turn's own schema.

        The runtime was given the turn's schema with its prompt and cannot change it
        mid-turn, so ``output=`` on a continuation only says how to validate the answer
        (typically the pydantic model again, after the turn came back from JSON state,
        which carries the JSON Schema only).

        Raises:
            HarnessConfigurationError: the turn has no structured output, or another schema.
        """
        if not call.output_given or call.output is None:
            return
        if self.output is None:
            raise HarnessConfigurationError(
                "output= on a continuation must be the turn's own output, but this turn was started "
                "without output= (the runtime was not asked for a structured answer)")
        if not same_schema(self.output, call.output):
            raise HarnessConfigurationError(
                f"output= on a continuation must have the turn's JSON Schema ({self.output.name!r}); "
                f"{call.output.name!r} differs (the runtime was given the turn's schema with its prompt)")

    @classmethod
    def restored(cls, output: Output | None) -> TurnFeatures:
        """The features of a turn continued from suspended state: its output, no stop conditions."""
        return cls(output=output, watch=StopWatch(()), mode="default")


def same_schema(a: Output, b: Output) -> bool:
    """True when ``a`` and ``b`` send runtimes the same JSON Schema."""
    return json.dumps(a.json_schema, sort_keys=True) == json.dumps(b.json_schema, sort_keys=True)


class AgentFeatures:
    """The agent's feature defaults, checked against the adapter's capabilities.

    Args:
        capabilities: the adapter's table (:func:`~harness_core.capabilities.capabilities_of`).
        output / stop_when / mode: the ``HarnessAgent`` settings.

    Raises:
        HarnessConfigurationError: a malformed setting.
        HarnessCapabilityUnsupportedError: a setting the adapter cannot honour.
    """

    def __init__(self, capabilities: HarnessCapabilities, *, output: OutputSetting | None = None,
                 stop_when: object = None, mode: object = "default", skills: object = None,
                 telemetry: object = None) -> None:
        self.capabilities = capabilities
        self.telemetry = parse_telemetry(telemetry)
        """The agent's tracing settings (:mod:`harness_core.telemetry`), or ``None`` (off)."""
        if self.telemetry is not None:
            capabilities.require(Capability.TELEMETRY, "telemetry=")
        self.skills = parse_skills(skills)
        """The agent's skills (:mod:`harness_core.skills`), handed to every session's adapter."""
        if self.skills:
            capabilities.require(Capability.SKILLS, "skills=")
        self.defaults = self._check(CallFeatures(
            output=Output.of(output) if output is not None else None,
            stop_when=stop_conditions(stop_when), mode=parse_mode(mode)))

    def _check(self, features: CallFeatures) -> CallFeatures:
        caps = self.capabilities
        if features.output is not None:
            caps.require(Capability.STRUCTURED_OUTPUT, "output=")
        if features.stop_when:
            caps.require(Capability.STOP_CONDITIONS, "stop_when=")
        if features.mode == "plan":
            caps.require(Capability.PLAN_MODE, "mode='plan'")
        return features

    def for_call(self, *, output: OutputSetting | None = None, stop_when: object = None,
                 mode: object = None) -> CallFeatures:
        """One call's features: its own values where given, else the agent's.

        Raises:
            HarnessConfigurationError / HarnessCapabilityUnsupportedError: as the constructor.
        """
        base = self.defaults
        return self._check(CallFeatures(
            output=Output.of(output) if output is not None else base.output,
            stop_when=stop_conditions(stop_when) if stop_when is not None else base.stop_when,
            mode=parse_mode(mode) if mode is not None else base.mode,
            stop_when_given=stop_when is not None, output_given=output is not None,
        ))

    def restore_output(self, stored: Mapping[str, Any] | None) -> Output | None:
        """The output of a turn continued from suspended state (its ``output`` entry).

        The agent's own ``output=`` when it has the same JSON Schema (so values are its
        pydantic model again), else an :class:`Output` of the stored schema (values are
        ``dict``); ``None`` when the turn had none.

        Raises:
            HarnessConfigurationError: the stored schema is unusable.
        """
        if stored is None:
            return None
        restored = Output.of(dict(stored["json_schema"]), repair_turns=int(stored.get("repair_turns", 0)),
                             name=str(stored.get("name") or "output"))
        default = self.defaults.output
        return default if default is not None and same_schema(default, restored) else restored


Generate: TypeAlias = Callable[[str], Awaitable[GenerateResult]]


async def generate_with_repairs(result: GenerateResult, generate: Generate) -> GenerateResult:
    """Repair turns for an invalid structured output (``Output.repair_turns``).

    While ``result``'s output is invalid, its turn finished (``stop``) and repairs are left,
    ``generate(repair_prompt)`` runs a new turn in the same session; the first valid
    result, or the last one, is returned.
    """
    structured: StructuredOutput | None = result.structured
    attempts = 0
    while (structured is not None and structured.error is not None and result.finish_reason == "stop"
           and attempts < structured.spec.repair_turns):
        attempts += 1
        result = await generate(repair_prompt(structured.error, structured.spec))
        structured = result.structured
    return result


def describe(features: CallFeatures) -> dict[str, Any]:
    """A JSON-friendly summary (for reprs and logs)."""
    return {"output": features.output.name if features.output else None,
            "stop_when": [getattr(c, "__name__", repr(c)) for c in features.stop_when], "mode": features.mode}
