"""HarnessAgent(state_secret=...) signs continuation state; altered or foreign state is refused.
Suspended state never holds the configured secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from harness_core import HarnessConfigurationError, StateIntegrityError, define_harness_tool
from harness_core.testing import CallHost, EchoResults, Say, ScriptedAdapter

pytestmark = pytest.mark.anyio

SECRET = "s3cret-key-for-tests-0123456789"


class Who(pydantic.BaseModel):
    token: str


def tools(ran: list[Any]) -> list[Any]:
    def execute(input: Any, ctx: Any) -> str:
        ran.append(input)
        return "ok"

    return [define_harness_tool(name="rec", description="rec", input={"type": "object"}, execute=execute,
                                context_schema=Who)]


def scripted() -> ScriptedAdapter:
    return ScriptedAdapter([[[CallHost("rec", {"path": "a.txt"}, id="h1")], [EchoResults()]], [[Say("hi")]]])


async def paused_state(agent: Any) -> dict[str, Any]:
    session = await agent.create_session(session_id="s1")
    await agent.generate(session=session, prompt="go")
    state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
    return state


def agent_for(adapter: ScriptedAdapter, ran: list[Any], **kwargs: Any) -> Any:
    return adapter.agent(tools=tools(ran), tool_approval={"rec": "user-approval"},
                         tools_context={"rec": {"token": "CONTEXT-TOKEN-42"}}, **kwargs)


async def test_signed_state_continues_with_the_same_secret() -> None:
    ran: list[Any] = []
    adapter = scripted()
    agent = agent_for(adapter, ran, state_secret=SECRET)
    state = await paused_state(agent)
    assert state["signature"]["alg"] == "hmac-sha256" and len(state["signature"]["value"]) == 64
    session = await agent.create_session(continue_from=json.dumps(state))
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-h1", "approved": True}])
    assert done.finish_reason == "stop" and ran == [{"path": "a.txt"}]


async def test_altered_or_foreign_state_is_refused() -> None:
    ran: list[Any] = []
    adapter = scripted()
    agent = agent_for(adapter, ran, state_secret=SECRET)
    state = await paused_state(agent)
    altered = json.loads(json.dumps(state))
    altered["pending_approvals"]["approval-h1"]["input"] = {"path": "/etc/passwd"}
    altered["adapter"]["turn"]["calls"][0]["input"] = {"path": "/etc/passwd"}
    with pytest.raises(StateIntegrityError, match="altered or signed with another state_secret"):
        await agent.create_session(continue_from=altered)
    other = agent_for(adapter, ran, state_secret="another-secret-of-16-bytes")
    with pytest.raises(StateIntegrityError, match="does not match"):
        await other.create_session(continue_from=state)
    unsigned = {k: v for k, v in state.items() if k != "signature"}
    with pytest.raises(StateIntegrityError, match="not signed"):
        await agent.create_session(continue_from=unsigned)
    plain = agent_for(adapter, ran)
    with pytest.raises(StateIntegrityError, match="no state_secret"):
        await plain.create_session(continue_from=state)
    with pytest.raises(StateIntegrityError, match="malformed signature"):
        await agent.create_session(continue_from={**state, "signature": "abc"})
    assert ran == [] and adapter.tool_results == {}
    assert issubclass(StateIntegrityError, HarnessConfigurationError)


async def test_stopped_session_state_is_signed_too() -> None:
    adapter = scripted()
    agent = agent_for(adapter, [], state_secret=SECRET.encode())
    session = await agent.create_session()
    stopped = await session.stop()
    assert "signature" in stopped
    resumed = await agent.create_session(resume_from=stopped)
    await resumed.destroy()
    with pytest.raises(StateIntegrityError):
        await agent.create_session(resume_from={**stopped, "session_id": "someone-else"})


def test_a_short_secret_is_a_configuration_error() -> None:
    with pytest.raises(HarnessConfigurationError, match="at least 16 bytes"):
        scripted().agent(state_secret="short")
    with pytest.raises(HarnessConfigurationError, match="str or bytes"):
        scripted().agent(state_secret=12345)


async def test_suspended_state_holds_no_configured_secret(workspace: Path) -> None:
    adapter = scripted()
    agent = agent_for(adapter, [], state_secret=SECRET)
    state = await paused_state(agent)
    text = json.dumps(state)
    for secret in ("CONTEXT-TOKEN-42", SECRET):
        assert secret not in text
