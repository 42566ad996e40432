"""The adapter conformance suite: one set of behaviour tests every adapter plugin runs.

An adapter passes when :class:`~harness_core.agent.harness_agent.HarnessAgent` behaves the same on it as
on any other runtime: built-in calls execute, host tools round-trip, approvals pause and
continue, denials never execute, filtering holds, a suspended turn continues in a fresh
process, abort and runtime failures leave a usable session.

**How it works.** Each test describes its model abstractly as a :class:`Scenario`: the
prompts of the conversation and, for each, the model's responses (text, tool calls by
*common* built-in name or host tool name, "repeat the tool results you received", "fail").
Your subclass turns a scenario into a running runtime:

1. :meth:`AdapterConformanceSuite.scenario_environment` (an async context manager) starts
   whatever serves the scenario's model, typically a scripted model server from
   :mod:`harness_core.testing` whose turns you build from the scenario, and yields
   JSON-serializable data (say ``{"base_url": server.base_url}``);
2. :attr:`AdapterConformanceSuite.agent_factory` names (``"package.module:function"``) an
   importable function ``build(env, workspace, agent_kwargs) -> ConformanceTarget`` that
   builds the agent: ``HarnessAgent(harness=<your adapter>, **agent_kwargs)`` plus the
   keyword arguments its sessions need (a sandbox on ``workspace``, say). The suite calls it
   in the test process and, for the cross-process test, in a fresh Python process
   (``python -m harness_core.testing.conformance``) with the same ``env``.

Conventions a scenario relies on:

* the runtime works in ``workspace`` (a fresh directory per test): shell commands run
  there, relative paths resolve there;
* built-in inputs follow the common baseline: ``bash`` takes ``{"command"}``; translate
  in :meth:`AdapterConformanceSuite.native_input` if your runtime differs;
* :attr:`ModelResponse.echo_results`: the model's text is its ``text`` followed by the
  text of every tool result it received in the previous request, so the suite can check
  what reached the model;
* :attr:`ModelResponse.fail`: the model endpoint fails (an HTTP 500 from a scripted
  server, for instance) so the runtime reports an error for that prompt.

:func:`scenario_script` (also exported here) builds that server's script from a scenario,
with hooks for how your runtime names host tools on the wire.

Example (the scripted in-process adapter runs it in ``tests/agent``)::

    from harness_core.testing import ScenarioFailure, ScriptedModelServer
    from harness_core.testing.conformance import AdapterConformanceSuite, scenario_script

    class TestMyAdapterConformance(AdapterConformanceSuite):
        agent_factory = "my_adapter.testing:conformance_target"

        @asynccontextmanager
        async def scenario_environment(self, scenario, workspace):
            with ScriptedModelServer(scenario_script(scenario)) as server:
                yield {"base_url": server.base_url}
            assert all(isinstance(e, ScenarioFailure) for e in server.errors), server.errors

A runtime that lacks a capability skips the tests that need it, with the reason, via
:attr:`AdapterConformanceSuite.unsupported` (``{"test name": "reason"}``); built-in approval
tests skip themselves when the adapter says ``supports_builtin_approvals = False``.

An adapter whose runtime is a process of its own also subclasses :class:`RuntimeFaultSuite`
(``faults.py``): the real runtime SIGKILLed during a model request, while a host tool runs and
while an approval waits must give a prompt ``runtime-crashed`` error and a usable session.
"""

from __future__ import annotations

from harness_core.testing._scenario_script import (
    ScenarioFailure,
    find_prompt_position,
    received_tool_results,
    scenario_script,
)
from harness_core.testing.conformance.checks import (
    check_automatic_denial,
    check_contract,
    check_stream_shape,
)
from harness_core.testing.conformance.child import main
from harness_core.testing.conformance.faults import RuntimeFaultSuite
from harness_core.testing.conformance.fixtures import (
    EXECUTIONS_FILE,
    ApproveOnlyPolicy,
    ConformanceTarget,
    DenyShellPolicy,
    agent_kwargs_from_spec,
    conformance_tools,
    executions,
    load_factory,
    scripted_conformance_target,
)
from harness_core.testing.conformance.scenario import (
    ModelResponse,
    Scenario,
    ScenarioCall,
    ScenarioPrompt,
    builtin,
    host,
    say,
)
from harness_core.testing.conformance.suite import AdapterConformanceSuite

__all__ = [
    "EXECUTIONS_FILE",
    "AdapterConformanceSuite",
    "ApproveOnlyPolicy",
    "ConformanceTarget",
    "DenyShellPolicy",
    "ModelResponse",
    "RuntimeFaultSuite",
    "Scenario",
    "ScenarioCall",
    "ScenarioFailure",
    "ScenarioPrompt",
    "agent_kwargs_from_spec",
    "builtin",
    "check_automatic_denial",
    "check_contract",
    "check_stream_shape",
    "conformance_tools",
    "executions",
    "find_prompt_position",
    "host",
    "load_factory",
    "main",
    "received_tool_results",
    "say",
    "scenario_script",
    "scripted_conformance_target",
]
