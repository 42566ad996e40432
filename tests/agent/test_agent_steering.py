"""``session.steer_turn`` through the core: refusals (scripted adapter, which has no steering)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessCapabilityUnsupportedError, define_harness_tool
from harness_core.testing import CallHost, Say, ScriptedAdapter

pytestmark = pytest.mark.anyio


async def test_an_adapter_without_steering_refuses_with_its_reason(tmp_path: Path) -> None:
    holder: dict[str, Any] = {}
    errors: list[BaseException] = []

    async def execute(input: Any, ctx: Any) -> str:
        try:
            await holder["session"].steer_turn("go left")
        except HarnessCapabilityUnsupportedError as error:
            errors.append(error)
        return "ok"

    tool = define_harness_tool(name="probe", description="Probe.", input={"type": "object"}, execute=execute)
    adapter = ScriptedAdapter([[[CallHost("probe", {})], [Say("done")]]], workspace=tmp_path)
    agent = adapter.agent(tools=[tool])
    assert not agent.capabilities.supports("steering")
    async with await agent.create_session() as session:
        holder["session"] = session
        result = await agent.generate(session=session, prompt="go")
        with pytest.raises(HarnessCapabilityUnsupportedError, match=r"steering.*not declared by the adapter"):
            await session.steer_turn("idle, and unsupported anyway")
    assert result.text == "done"
    [error] = errors  # refused while the turn was running, before reaching the adapter
    assert "steer_turn()" in str(error) and error.harness_id == agent.harness_id
