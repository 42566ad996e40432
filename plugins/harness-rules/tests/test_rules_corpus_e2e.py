"""A sample of the adversarial corpus in real built-in harness turns (scripted model).

The rules come from the corpus workspace's ``.harness/rules.toml``, read by the installed
entry-point plugin; the permission mode is ``allow-all``, so only the rules stand between
each payload and the shell. Denied payloads never run (the victim file survives, the
secret never reaches the model); asked payloads pause the turn for approval.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("harness_builtin")

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import ModelTurn, Script, ToolCallSpec

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the corpus module sits here
from rules_corpus import corpus, make_workspace

pytestmark = pytest.mark.anyio

DENIED = ["rm victim", "\\rm victim", "bash -c 'rm victim'", "echo ${x:-$(rm -f victim)}",
          "env 'BASH_FUNC_echo%%=() { rm victim; }' bash -c echo", "bash < <(echo rm victim)", "cat < .en?",
          "cat /proc/self/cwd/.env", "cat .e*", "timeout 5 rm victim", "true | rm victim", "echo $(rm victim)"]
ALLOWED = ["cat src/a.py", "ls -la src"]
ASKED = ["printf -v 'a[$(rm victim)]' x", "LD_PRELOAD=/tmp/x.so bash -c true"]


@pytest.fixture
def corpus_ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws, home = make_workspace(tmp_path.resolve())
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return ws


def _agent(server: Any) -> HarnessAgent:
    options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key", "max_retries": 0}
    return HarnessAgent(harness="builtin", harness_options=options, include_plugin_tools=False,
                        permission_mode="allow-all")


def test_the_sample_is_what_the_corpus_expects() -> None:
    expected = {p.input.get("command"): p.expected for p in corpus() if p.tool == "bash"}
    assert all(expected[c] == "deny" for c in DENIED)
    assert all(expected[c] == "allow" for c in ALLOWED)
    assert all(expected[c] == "ask" for c in ASKED)


async def test_denied_payloads_never_run_in_a_real_turn(scripted_model_server: Any, corpus_ws: Path) -> None:
    turns = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": c})]) for c in [*DENIED, *ALLOWED]]
    server = scripted_model_server(Script.of(*turns, "Done."))
    agent = _agent(server)
    async with await agent.create_session(sandbox=LocalSandbox(corpus_ws)) as session:
        result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop", result.parts
    denied: list[Any] = [p for p in result.parts if p.type == "tool-output-denied"]
    assert len(denied) == len(DENIED)
    assert all(p.reason and "permission rule" in p.reason for p in denied)
    assert (corpus_ws / "victim").read_text() == "precious\n"
    bodies = "\n".join(json.dumps(r.body) for r in server.requests if r.is_model_call)
    assert "hunter2" not in bodies
    outputs = [str(getattr(p, "output", "")) for p in result.parts if p.type == "tool-result"]
    assert any("print('a')" in o for o in outputs) and any("a.py" in o for o in outputs)


@pytest.mark.parametrize("command", ASKED)
async def test_asked_payloads_wait_for_approval_under_allow_all(scripted_model_server: Any, corpus_ws: Path,
                                                                command: str) -> None:
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})]),
                                             "Paused."))
    agent = _agent(server)
    async with await agent.create_session(sandbox=LocalSandbox(corpus_ws)) as session:
        result = await agent.generate(session=session, prompt="go")
        requests = [p for p in result.parts if p.type == "tool-approval-request"]
        assert len(requests) == 1
    assert (corpus_ws / "victim").read_text() == "precious\n"


async def test_a_search_over_a_denied_subtree_runs_with_it_excluded(scripted_model_server: Any,
                                                                     corpus_ws: Path) -> None:
    excluded = [".env", "secrets", "src/env_link"]
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN|KEY|print", "path": "."})]),
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN|KEY|print", "path": ".", "exclude": excluded})]),
        ModelTurn(tool_calls=[ToolCallSpec("glob", {"pattern": "**/*", "exclude": excluded})]),
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": ".", "exclude": [".env"]})]),
        "Done.",
    ))
    agent = _agent(server)
    async with await agent.create_session(sandbox=LocalSandbox(corpus_ws)) as session:
        result = await agent.generate(session=session, prompt="search")
    denied: list[Any] = [p for p in result.parts if p.type == "tool-output-denied"]
    # the first search names what to exclude; excluding only part of it is still denied
    assert len(denied) == 2 and denied[0].reason is not None
    assert all(json.dumps(path) in denied[0].reason for path in excluded)
    outputs = [str(getattr(p, "output", "")) for p in result.parts if p.type == "tool-result"]
    assert len(outputs) == 2
    assert "print('a')" in outputs[0] and "hunter2" not in outputs[0] and "KEY" not in outputs[0]
    assert "src/a.py" in outputs[1] and not any(x in outputs[1] for x in (".env", "secrets", "env_link"))
    bodies = "\n".join(json.dumps(r.body) for r in server.requests if r.is_model_call)
    assert "hunter2" not in bodies
