"""The conformance suite can fail: run it (in a separate pytest) against deliberately broken adapters."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BROKEN = textwrap.dedent('''
    """Broken adapters for the conformance meta-test."""
    from harness_core.adapter import AwaitingAnswers
    from harness_core.tools.output import ToolOutput
    from harness_core.testing.scripted_adapter import ScriptedAdapter
    from harness_core.testing import conformance


    def _patch_turns(adapter, patch):
        start = adapter.start

        async def patched_start(request):
            session = await start(request)
            prompt = session.prompt

            async def patched_prompt(prompt_request):
                turn = await prompt(prompt_request)
                patch(turn)
                return turn

            session.prompt = patched_prompt
            return session

        adapter.start = patched_start
        return adapter


    def no_marker(turn):
        events = turn.events

        async def filtered():
            async for event in events():
                if not isinstance(event, AwaitingAnswers):
                    yield event

        turn.events = filtered


    def blank_results(turn):
        submit = turn.submit_tool_result

        async def forget(tool_call_id, output):
            await submit(tool_call_id, ToolOutput(""))

        turn.submit_tool_result = forget


    def _target(env, workspace, agent_kwargs, patch):
        target = conformance.scripted_conformance_target(env, workspace, agent_kwargs)
        _patch_turns(target.agent.adapter, patch)
        return target


    def no_marker_target(env, workspace, agent_kwargs):
        return _target(env, workspace, agent_kwargs, no_marker)


    def blank_results_target(env, workspace, agent_kwargs):
        return _target(env, workspace, agent_kwargs, blank_results)
''')

SUITE = textwrap.dedent('''
    from contextlib import asynccontextmanager

    from harness_core.testing.conformance import AdapterConformanceSuite


    class _Base(AdapterConformanceSuite):
        scenario_timeout = 2.0

        @asynccontextmanager
        async def scenario_environment(self, scenario, workspace):
            yield {"scenario": scenario.to_json()}


    class TestNoMarker(_Base):
        agent_factory = "broken_adapters:no_marker_target"


    class TestBlankResults(_Base):
        agent_factory = "broken_adapters:blank_results_target"
''')


def test_the_suite_fails_broken_adapters(tmp_path: Path) -> None:
    (tmp_path / "broken_adapters.py").write_text(BROKEN)
    (tmp_path / "test_broken_conformance.py").write_text(SUITE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         "-k", "host_approval_pause or host_tool_round_trip", str(tmp_path / "test_broken_conformance.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 1, output
    assert "FAILED test_broken_conformance.py::TestNoMarker::test_host_approval_pause_and_continue" in output
    assert "does not emit AwaitingAnswers" in output
    assert "FAILED test_broken_conformance.py::TestBlankResults::test_host_tool_round_trip" in output
    assert "the model did not receive the result" in output
    assert "FAILED test_broken_conformance.py::TestBlankResults::test_host_approval_pause_and_continue" in output
    # what the missing marker does not break still passes
    assert "3 failed, 1 passed" in output, output
