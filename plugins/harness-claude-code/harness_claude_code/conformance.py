"""Running harness-core's adapter conformance suite against Claude Code.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_claude_code.conformance:conformance_target"``): it builds a
:class:`~harness_core.HarnessAgent` on the real Claude Code runtime, pointed at the scripted
model server and the isolated home the test's ``scenario_environment`` describes in ``env``:

``base_url``
    the scripted Anthropic server (``server.base_url``);
``home`` / ``config_dir``
    an isolated ``HOME`` and ``CLAUDE_CONFIG_DIR``.

:func:`scenario_script` turns a conformance :class:`~harness_core.testing.conformance.Scenario`
into a scripted-server responder for Claude Code. The suite calls the factory in the test
process and again in a fresh process for the cross-process continuation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent
from harness_core.testing import ModelRequest, ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import ConformanceTarget, Scenario

from ._adapter import claude_code
from ._settings import HOST_SERVER

__all__ = ["ScenarioFailure", "conformance_target", "scenario_script"]


class ScenarioFailure(RuntimeError):
    """Raised by the responder for a ``fail`` response: the scripted server answers HTTP 500."""


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory``: an agent on Claude Code, isolated as ``env`` says."""
    adapter = claude_code(
        base_url=env["base_url"],
        api_key="conformance-key",
        home=env["home"],
        config_dir=env["config_dir"],
        cwd=workspace,
        setting_sources=[],
        env={"CLAUDE_CODE_MAX_RETRIES": "1"},
    )
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs))


def _prompt_position(scenario: Scenario, request: ModelRequest) -> tuple[int, int] | None:
    """``(prompt index, response index)`` for a request: which prompt it answers, how far in."""
    prompts = [p.prompt for p in scenario.prompts]
    for position in range(len(request.messages) - 1, -1, -1):
        message = request.messages[position]
        if message.role != "user":
            continue
        for index in range(len(prompts) - 1, -1, -1):
            if prompts[index] in message.text:
                answered = sum(1 for m in request.messages[position + 1 :] if m.role == "assistant")
                return index, answered
    return None


def scenario_script(scenario: Scenario) -> Script:
    """A :class:`~harness_core.testing.Script` answering ``scenario`` as Claude Code asks it.

    Each request is matched to the latest scenario prompt in its history, and the response
    is chosen by how many assistant messages follow that prompt, so Claude Code's own extra
    turns (compaction, a re-run after a crash) do not shift the script. Host tools are called
    by their MCP names (``mcp__harness__<tool>``). A call to a tool the request did not offer
    (it was filtered out) is left out, as a model cannot call a tool it was not given.
    """

    def respond(request: ModelRequest) -> ModelTurn | None:
        if request.is_side_request:
            return None
        position = _prompt_position(scenario, request)
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
            after_assistant: list[str] = []
            for message in reversed(request.messages):
                if message.role == "assistant":
                    break
                after_assistant[:0] = [r.text for r in message.tool_results]
            text = " ".join([response.text or "", *after_assistant]).strip()
        offered = set(request.tool_names)
        calls = []
        for call in response.calls:
            name = call.tool if call.builtin else f"mcp__{HOST_SERVER}__{call.tool}"
            if call.builtin or name in offered:
                try:
                    request.resolve_tool(name)
                except LookupError:
                    continue
                calls.append(ToolCallSpec(name, dict(call.input), id=call.id))
        if not calls and text is None:
            text = ""
        return ModelTurn(text, tool_calls=calls)

    return Script(respond=respond, side_answer="OK.")
