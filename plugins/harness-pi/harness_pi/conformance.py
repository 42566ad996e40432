"""Running harness-core's adapter conformance suite against pi.

:func:`conformance_target` is the suite's ``agent_factory``
(``"harness_pi.conformance:conformance_target"``). ``env`` (from the test's
``scenario_environment``) carries ``base_url`` (the scripted server's OpenAI base URL) and
``api`` (``openai-completions`` or ``openai-responses``). pi offers built-ins and host tools
under the scenario's names, so harness-core's :func:`~harness_core.testing.scenario_script`
plays scenarios unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing.conformance import ConformanceTarget

from ._adapter import pi

__all__ = ["conformance_target"]


def conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]) -> ConformanceTarget:
    """The conformance ``agent_factory``: an agent on pi pointed at the scripted server."""
    adapter = pi(model="fake-model", base_url=env["base_url"], api=env.get("api", "openai-completions"),
                 api_key="conformance-key", cwd=workspace, max_retries=1, retry_delay_ms=50,
                 keep_recent_tokens=1)
    return ConformanceTarget(agent=HarnessAgent(harness=adapter, **agent_kwargs),
                             session_kwargs={"sandbox": LocalSandbox(workspace)})
