"""Running harness-core's adapter conformance suite against the built-in harness.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_builtin.conformance:conformance_target"``): a
:class:`~harness_core.agent.harness_agent.HarnessAgent` on the built-in harness whose model is the
scripted Anthropic server at ``env["base_url"]``, working in a
:class:`~harness_core.sandbox.LocalSandbox` on the test's workspace.
Its :func:`scenario_script` and :class:`ScenarioFailure` are harness-core's
(:func:`harness_core.testing.scenario_script`) with no hooks: the built-in harness offers
built-ins under their common names and host tools under their own names.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import ScenarioFailure, scenario_script
from harness_core.testing.conformance import ConformanceTarget

from .adapter import create_builtin_adapter

__all__ = ["ScenarioFailure", "conformance_target", "scenario_script"]


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory`` (see the module docs)."""
    adapter = create_builtin_adapter(
        model="anthropic:conformance-model", base_url=env["base_url"], api_key="conformance-key", max_retries=0,
    )
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs),
                             session_kwargs={"sandbox": LocalSandbox(workspace)})

