"""Running one conformance scenario: environment, agent, session, timeout, contract check."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
import attrs
import pytest

from harness_core.agent.harness_agent import HarnessAgent
from harness_core.agent.session import HarnessSession
from harness_core.capabilities import capabilities_of
from harness_core.testing.conformance.checks import check_contract
from harness_core.testing.conformance.fixtures import agent_kwargs_from_spec, load_factory
from harness_core.testing.conformance.scenario import Scenario, ScenarioCall

__all__ = ["SuiteSettings", "run_child", "scenario_run"]


class SuiteSettings(Protocol):
    """What :func:`scenario_run` reads of an :class:`~harness_core.testing.conformance.AdapterConformanceSuite`."""

    @property
    def agent_factory(self) -> str: ...

    @property
    def unsupported(self) -> Mapping[str, str]: ...

    @property
    def scenario_timeout(self) -> float: ...

    def scenario_environment(self, scenario: Scenario, workspace: Path
                             ) -> AbstractAsyncContextManager[Mapping[str, Any]]: ...

    def native_input(self, call: ScenarioCall) -> Mapping[str, Any]: ...


def native_scenario(suite: SuiteSettings, scenario: Scenario) -> Scenario:
    """``scenario`` with every built-in input translated by ``suite.native_input``."""
    def convert(call: ScenarioCall) -> ScenarioCall:
        return attrs.evolve(call, input=dict(suite.native_input(call))) if call.builtin else call

    return attrs.evolve(scenario, prompts=tuple(
        attrs.evolve(p, responses=tuple(attrs.evolve(r, calls=tuple(convert(c) for c in r.calls))
                                        for r in p.responses)) for p in scenario.prompts))


@asynccontextmanager
async def scenario_run(suite: SuiteSettings, scenario: Scenario, workspace: Path,
                       spec: Mapping[str, Any] | None = None, *, requires: frozenset[str] = frozenset()
                       ) -> AsyncIterator[tuple[HarnessAgent, HarnessSession, Mapping[str, Any]]]:
    """Serve ``scenario``, build the agent and a session, yield ``(agent, session, env)``.

    Skips for ``suite.unsupported`` and for missing ``requires`` capabilities; fails a hung
    scenario after ``suite.scenario_timeout`` seconds and a session that recorded contract
    violations; destroys the session afterwards.
    """
    if scenario.name in suite.unsupported:
        pytest.skip(f"{type(suite).__name__}: {suite.unsupported[scenario.name]}")
    if not suite.agent_factory:
        raise NotImplementedError(f"{type(suite).__name__} must set agent_factory = 'package.module:function'")
    scenario = native_scenario(suite, scenario)
    factory = load_factory(suite.agent_factory)
    async with suite.scenario_environment(scenario, workspace) as env:
        json.dumps(env)  # must be JSON data: the child process receives it
        if requires:
            adapter = factory(env, workspace, agent_kwargs_from_spec({}, workspace)).agent.adapter
            if "builtin-approvals" in requires and not adapter.supports_builtin_approvals:
                pytest.skip(f"harness {adapter.harness_id!r} does not support built-in approvals")
            if "builtin-filtering" in requires and not (
                    adapter.supports_builtin_filtering or adapter.supports_builtin_approvals):
                pytest.skip(f"harness {adapter.harness_id!r} can filter built-ins neither natively nor by approvals")
            caps = capabilities_of(adapter)
            for name in sorted(requires - {"builtin-approvals", "builtin-filtering"}):
                if not caps.supports(name):  # an optional capability section (conformance/features.py)
                    pytest.skip(f"harness {adapter.harness_id!r} does not support {name}: {caps[name].detail}")
        target = factory(env, workspace, agent_kwargs_from_spec(spec or {}, workspace))
        session = await target.agent.create_session(**dict(target.session_kwargs))
        try:
            with anyio.fail_after(suite.scenario_timeout):
                yield target.agent, session, env
            check_contract(session.contract_violations)
        except TimeoutError:
            pytest.fail(
                f"scenario {scenario.name!r} did not finish within {suite.scenario_timeout} s; a paused turn that "
                "never returns usually means the adapter does not emit AwaitingAnswers when its runtime waits"
            )
        finally:
            with anyio.CancelScope(shield=True):
                await session.destroy()


def run_child(command: Sequence[str], payload: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
    """Run the continuation ``payload`` in ``command`` (a fresh process); its JSON result.

    Fails the test when the process fails or its session recorded contract violations.
    """
    process = subprocess.run(list(command), input=json.dumps(payload), capture_output=True,
                             text=True, timeout=timeout, check=False)
    assert process.returncode == 0, (
        f"the continuation process failed (exit {process.returncode}):\n{process.stderr[-4000:]}"
    )
    data: dict[str, Any] = json.loads(process.stdout.strip().splitlines()[-1])
    check_contract(data.get("violations", ()))
    return data
