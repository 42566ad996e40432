"""Running harness-core's adapter conformance suite against the built-in harness.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_builtin.conformance:conformance_target"``): a
:class:`~harness_core.agent.HarnessAgent` on the built-in harness whose model is the
scripted Anthropic server at ``env["base_url"]``, working in a
:class:`~harness_core.sandbox.LocalSandbox` on the test's workspace.
:func:`scenario_script` turns a conformance scenario into that server's script.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core.agent import HarnessAgent
from harness_core.sandbox import LocalSandbox
from harness_core.testing import ModelRequest, ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import ConformanceTarget, Scenario

from .adapter import create_builtin_adapter

__all__ = ["ScenarioFailure", "conformance_target", "scenario_script"]


class ScenarioFailure(RuntimeError):
    """Raised by the responder for a ``fail`` response: the server answers HTTP 500."""


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory`` (see the module docs)."""
    adapter = create_builtin_adapter(
        model="anthropic:conformance-model", base_url=env["base_url"], api_key="conformance-key", max_retries=0,
    )
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs),
                             session_kwargs={"sandbox": LocalSandbox(workspace)})


def _position(scenario: Scenario, request: ModelRequest) -> tuple[int, int] | None:
    prompts = [p.prompt for p in scenario.prompts]
    for at in range(len(request.messages) - 1, -1, -1):
        message = request.messages[at]
        if message.role == "user" and message.text in prompts:
            answered = sum(1 for m in request.messages[at + 1 :] if m.role == "assistant")
            return prompts.index(message.text), answered
    return None


def scenario_script(scenario: Scenario) -> Script:
    """The script answering ``scenario``: each request is matched to its prompt, and the
    response chosen by how many assistant messages follow it. Calls to tools the request
    did not offer (filtered out) are left out, as a model cannot call them."""

    def respond(request: ModelRequest) -> ModelTurn | None:
        if request.is_side_request:
            return None
        position = _position(scenario, request)
        if position is None:
            return None
        prompt, index = position
        responses = scenario.prompts[prompt].responses
        if index >= len(responses):
            return ModelTurn("Done.")
        response = responses[index]
        if response.fail is not None:
            raise ScenarioFailure(response.fail)
        text = response.text
        if response.echo_results:
            received = list(request.messages[-1].tool_results) if request.messages else []
            text = " ".join([response.text or "", *(r.text for r in received)]).strip()
        offered = set(request.tool_names)
        calls = [ToolCallSpec(c.tool, dict(c.input), id=c.id) for c in response.calls if c.tool in offered]
        if not calls and text is None:
            text = ""
        return ModelTurn(text, tool_calls=calls)

    return Script(respond=respond, side_answer="OK.")
