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
into a scripted-server script for Claude Code (harness-core's
:func:`~harness_core.testing.scenario_script`, naming host tools as Claude Code offers them).
The suite calls the factory in the test process and again in a fresh process for the
cross-process continuation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent
from harness_core.testing import ScenarioFailure, Script
from harness_core.testing import scenario_script as core_scenario_script
from harness_core.testing.conformance import ConformanceTarget, Scenario, ScenarioCall

from ._adapter import claude_code
from ._settings import HOST_PREFIX

__all__ = ["ScenarioFailure", "conformance_target", "scenario_script", "wire_tool_name"]


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


def wire_tool_name(call: ScenarioCall) -> str:
    """The name a scenario call uses on Claude Code's wire.

    Built-ins keep their common name (the scripted server resolves ``bash`` to ``Bash``);
    host tools are MCP tools of the ``harness`` server: ``mcp__harness__<tool>``.
    """
    return call.tool if call.builtin else f"{HOST_PREFIX}{call.tool}"


def scenario_script(scenario: Scenario) -> Script:
    """A :class:`~harness_core.testing.Script` answering ``scenario`` as Claude Code asks it.

    :func:`harness_core.testing.scenario_script` with host tools named by
    :func:`wire_tool_name`. Each request is matched to the latest scenario prompt in its
    history (Claude Code wraps prompts in reminders, so containing a prompt counts), and the
    response is chosen by how many assistant messages follow it, so Claude Code's own extra
    turns (compaction, a re-run after a crash) do not shift the script. A call to a tool the
    request did not offer (it was filtered out) is left out, as a model cannot call a tool it
    was not given. A ``fail`` response raises :class:`ScenarioFailure` (HTTP 500).
    """
    return core_scenario_script(scenario, tool_name=wire_tool_name)
