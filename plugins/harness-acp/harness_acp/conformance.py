"""Running harness-core's adapter conformance suite against an ACP agent.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_acp.conformance:conformance_target"``): it builds a
:class:`~harness_core.HarnessAgent` on a real ACP agent pointed at the scripted model
server the test's ``scenario_environment`` describes in ``env``:

``agent``
    the profile (``codex-acp`` or ``pi-acp``);
``base_url``
    the scripted server's OpenAI base URL (``server.openai_base_url``);
``home``
    an isolated ``HOME`` for the agent.

:func:`scenario_script` names host tools as Codex-style agents offer MCP tools
(``mcp__harness__<tool>``; the scripted server resolves Codex's namespaced offer).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import Script
from harness_core.testing import scenario_script as core_scenario_script
from harness_core.testing.conformance import ConformanceTarget, Scenario, ScenarioCall

from ._adapter import acp
from ._settings import HOST_PREFIX

__all__ = ["conformance_target", "scenario_script", "wire_tool_name"]


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory``: an agent on the ACP profile ``env["agent"]``."""
    adapter = acp(agent=env["agent"], base_url=env["base_url"], model=env.get("model", "fake-model"),
                  home=env["home"], cwd=workspace)
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs),
                             session_kwargs={"sandbox": LocalSandbox(workspace)})


def wire_tool_name(call: ScenarioCall) -> str:
    """Built-ins keep their common name (the server resolves ``bash``); host tools are ``mcp__harness__<tool>``."""
    return call.tool if call.builtin else f"{HOST_PREFIX}{call.tool}"


def scenario_script(scenario: Scenario) -> Script:
    """:func:`harness_core.testing.scenario_script` with host tools named by :func:`wire_tool_name`."""
    return core_scenario_script(scenario, tool_name=wire_tool_name)
