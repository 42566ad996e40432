"""Running harness-core's adapter conformance suite against Codex.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_codex.conformance:conformance_target"``): a :class:`~harness_core.HarnessAgent`
on the real Codex CLI, pointed at the scripted Responses server in ``env["base_url"]``
(``server.openai_base_url``), with ``HOME`` / ``CODEX_HOME`` in ``env["home"]``. The model
slug is ``gpt-5.5`` so Codex offers ``apply_patch``; retries are off so a scripted HTTP 500
fails the turn at once. :func:`scenario_script` is harness-core's scenario script (host
tools are dynamic tools, named as they are).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from harness_core import HarnessAgent, create_plugin_manager
from harness_core.testing import Script
from harness_core.testing import scenario_script as core_scenario_script
from harness_core.testing.conformance import ConformanceTarget, Scenario

from . import plugin as codex_plugin
from ._adapter import codex

__all__ = ["NO_RETRIES", "TEST_MODEL", "conformance_target", "scenario_script"]

TEST_MODEL: Final = "gpt-5.5"
NO_RETRIES: Final = {"model_providers.harness.request_max_retries": 0,
                     "model_providers.harness.stream_max_retries": 0}


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory``: an agent on Codex, isolated as ``env`` says.

    ``env["installed_plugins"] = False`` builds the agent on a plugin manager holding only this
    plugin (no installed approval policies), so allow-all sessions run without approvals.
    """
    home = Path(env["home"])
    adapter = codex(model=TEST_MODEL, base_url=env["base_url"], api_key="conformance-key", home=home,
                    codex_home=home / ".codex", cwd=workspace, config=NO_RETRIES)
    if not env.get("installed_plugins", True):
        agent_kwargs = {**agent_kwargs, "plugin_manager": create_plugin_manager(load_entry_points=False,
                                                                                plugins=[codex_plugin])}
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs))


def scenario_script(scenario: Scenario) -> Script:
    """The scripted-server script answering ``scenario`` as Codex asks it."""
    return core_scenario_script(scenario)
