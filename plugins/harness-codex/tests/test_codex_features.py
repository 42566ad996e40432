"""Structured output (turn/start outputSchema) and capabilities on the real Codex
app-server (scripted Responses model)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pydantic
import pytest

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    step_count_is,
)
from harness_core.testing import ModelTurn, Script, ScriptedModelServer
from harness_core.testing.conformance import check_stream_shape

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


class Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    files: list[str]
    count: int


async def test_output_schema_reaches_the_model_and_validates(make_agent: Callable[..., HarnessAgent],
                                                             tmp_path: Path) -> None:
    script = Script.of('{"files": ["a.py",', ModelTurn('{"files": ["b.py"], "count": 1}'))
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, output=Answer)
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            broken = await agent.generate(session=session, prompt="which files?")
            stream = agent.stream(session=session, prompt="again")
            partials = [p async for p in stream.partial_output_stream]
            result = await stream.consume()
        calls = [r for r in server.requests if r.is_model_call]
    with pytest.raises(ValueError, match="not JSON"):
        _ = broken.output
    check_stream_shape(result.parts)
    assert result.output == Answer(files=["b.py"], count=1)
    assert partials[-1] == {"files": ["b.py"], "count": 1}
    text_format = calls[0].body["text"]["format"]
    assert text_format["type"] == "json_schema"
    assert text_format["schema"]["required"] == ["files", "count"]


def test_plan_mode_and_stop_conditions_are_refused_with_the_reason(make_agent: Callable[..., HarnessAgent]) -> None:
    with ScriptedModelServer(Script.of("x")) as server:
        with pytest.raises(HarnessCapabilityUnsupportedError, match="collaboration mode"):
            make_agent(server, mode="plan")
        with pytest.raises(HarnessCapabilityUnsupportedError, match="model-step boundaries"):
            make_agent(server, stop_when=step_count_is(1))
        agent = make_agent(server)
    assert agent.capabilities.supports("structured-output")
    assert not agent.capabilities.supports("plan-mode")
