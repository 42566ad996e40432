"""The ten-line approval policy of CONTRIBUTING.md works as the text says, on a real agent."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import pytest

from harness_core.parts.models import ToolOutputDeniedPart
from harness_core.testing import CallBuiltin, EchoResults, ScriptedAdapter

DOC = Path(__file__).resolve().parents[2] / "CONTRIBUTING.md"


def policy_module() -> types.ModuleType:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## An approval policy in ten lines") :]
    code = re.search(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    assert code is not None, "the policy example is gone from CONTRIBUTING.md"
    source = code.group(1)
    body = [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(body) <= 12, f"the 'ten-line' policy has {len(body)} lines of code"
    module = types.ModuleType("my_policy")
    exec(compile(source, "CONTRIBUTING.md[policy]", "exec"), module.__dict__)
    return module


def script(*calls: CallBuiltin) -> list[Any]:
    return [[list(calls), [EchoResults("saw")]]]


@pytest.mark.anyio
async def test_the_policy_denies_a_dotenv_write_and_the_model_sees_why(workspace: Path) -> None:
    adapter = ScriptedAdapter(
        script(CallBuiltin("write", {"file_path": "app/.env", "content": "KEY=1"}, id="w")), workspace=workspace
    )
    agent = adapter.agent(plugins=[policy_module()])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.reason == "this project keeps its secrets in .env"
    assert not (workspace / "app" / ".env").exists()
    assert "this project keeps its secrets in .env" in result.text


@pytest.mark.anyio
async def test_the_policy_asks_before_git_push_and_lets_other_commands_run(workspace: Path) -> None:
    adapter = ScriptedAdapter(
        script(
            CallBuiltin("bash", {"command": "echo ok > ok.txt"}, id="a"),
            CallBuiltin("bash", {"command": "git push origin main"}, id="b"),
        ),
        workspace=workspace,
    )
    agent = adapter.agent(plugins=[policy_module()])
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert [r.tool_call.tool_call_id for r in result.approval_requests] == ["b"]
    approval_id = result.approval_requests[0].approval_id
    done = await agent.continue_generate(
        session=session, approval_responses=[{"approval_id": approval_id, "approved": False, "reason": "not now"}]
    )
    assert done.finish_reason == "stop"
    assert (workspace / "ok.txt").read_text() == "ok\n"  # no one was asked about this one
