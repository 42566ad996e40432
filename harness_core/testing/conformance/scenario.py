"""Conformance scenarios: a conversation with a scripted model, independent of any runtime."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["ModelResponse", "Scenario", "ScenarioCall", "ScenarioPrompt", "builtin", "host", "say"]


@attrs.frozen
class ScenarioCall:
    """One tool call the model makes.

    Attributes:
        tool: a common built-in name (``bash``) or a host tool name.
        input: the input (common baseline for built-ins).
        id: the call id, unique within the scenario.
        builtin: True for built-ins.
    """

    tool: str
    input: Mapping[str, Any]
    id: str
    builtin: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "input": dict(self.input), "id": self.id, "builtin": self.builtin}


@attrs.frozen
class ModelResponse:
    """One model response.

    Attributes:
        text: what the model says (before any tool calls).
        calls: tool calls made in this response (parallel calls when several).
        echo_results: append the text of every tool result the model received.
        fail: the model endpoint fails with this message instead of answering.
        echo_seen: markers to append, each one the model's request carries anywhere (its
            messages, instructions or tool list): what reached the model (a steering message,
            a skill's description). Played by :func:`~harness_core.testing.scenario_script`
            (a model server); the in-process scripted adapter ignores it.
    """

    text: str | None = None
    calls: tuple[ScenarioCall, ...] = ()
    echo_results: bool = False
    fail: str | None = None
    echo_seen: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "calls": [c.to_json() for c in self.calls], "echo_results": self.echo_results,
                "fail": self.fail, "echo_seen": list(self.echo_seen)}


@attrs.frozen
class ScenarioPrompt:
    """One user prompt and the model responses it gets, in order."""

    prompt: str
    responses: tuple[ModelResponse, ...]

    def to_json(self) -> dict[str, Any]:
        return {"prompt": self.prompt, "responses": [r.to_json() for r in self.responses]}


@attrs.frozen
class Scenario:
    """A conversation with a scripted model, independent of any runtime.

    Attributes:
        name: the conformance test's name.
        prompts: the prompts, in order.
    """

    name: str
    prompts: tuple[ScenarioPrompt, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON data (:meth:`from_json` reads it back)."""
        return {"name": self.name, "prompts": [p.to_json() for p in self.prompts]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scenario:
        """Rebuild a scenario from :meth:`to_json` data."""
        return cls(name=data["name"], prompts=tuple(
            ScenarioPrompt(prompt=p["prompt"], responses=tuple(
                ModelResponse(text=r.get("text"), echo_results=bool(r.get("echo_results")), fail=r.get("fail"),
                              echo_seen=tuple(r.get("echo_seen") or ()),
                              calls=tuple(ScenarioCall(tool=c["tool"], input=c["input"], id=c["id"],
                                                       builtin=bool(c.get("builtin"))) for c in r.get("calls", ())))
                for r in p["responses"]))
            for p in data["prompts"]))

    @property
    def calls(self) -> tuple[ScenarioCall, ...]:
        """Every call of the scenario, in order."""
        return tuple(c for p in self.prompts for r in p.responses for c in r.calls)


def say(text: str, *, echo: bool = False, echo_seen: tuple[str, ...] = ()) -> ModelResponse:
    """A text response (optionally echoing the tool results received, and the ``echo_seen``
    markers the request carries)."""
    return ModelResponse(text=text, echo_results=echo, echo_seen=echo_seen)


def builtin(tool: str, call_id: str, **input: Any) -> ModelResponse:
    """A response calling one built-in."""
    return ModelResponse(calls=(ScenarioCall(tool, input, call_id, builtin=True),))


def host(tool: str, call_id: str, **input: Any) -> ModelResponse:
    """A response calling one host tool."""
    return ModelResponse(calls=(ScenarioCall(tool, input, call_id),))
