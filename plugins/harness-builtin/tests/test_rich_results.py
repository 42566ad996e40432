"""Rich tool results on the built-in harness (issue 23 item 4, issue 11's last gap): a host
tool's ``{"content": [...]}`` with an image, and an MCP tool's image, reach the model as
the stream shows them (Anthropic: ``tool_result`` image blocks), or as a visible
placeholder plus a warning where the API takes text only (OpenAI Chat tool messages)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, ToolResultPart, define_harness_tool
from harness_core.testing import (
    PNG_1X1,
    ImageView,
    ModelTurn,
    Script,
    ToolCallSpec,
    stdio_server_config,
)

pytestmark = pytest.mark.anyio

screenshot = define_harness_tool(
    name="screenshot", description="Take a screenshot.", input={"type": "object", "properties": {}},
    execute=lambda input, ctx: {"content": [{"type": "text", "text": "the screen"},
                                            {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]},
)


def agent_for(server: Any, model: str, **options: Any) -> HarnessAgent:
    harness_options = {"model": model, "base_url": server.base_url, "api_key": "test-key", "max_retries": 0,
                       **options.pop("harness_options", {})}
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


def script() -> Script:
    return Script.of(ModelTurn(tool_calls=[ToolCallSpec("screenshot", {}, id="c1")]), "seen")


async def test_a_host_tool_image_reaches_the_anthropic_model_as_an_image_block(
        scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(script())
    agent = agent_for(server, "anthropic:fake-model", tools=[screenshot])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="look")
        state = await session.stop()
    assert result.finish_reason == "stop", result.parts
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert part.output[1] == {"type": "image", "data": PNG_1X1, "mimeType": "image/png"} and part.warnings is None
    seen = server.model_requests[-1].tool_results[-1]
    assert seen.text == "the screen"
    assert seen.images == (ImageView("image/png", PNG_1X1),)
    body = json.dumps(dict(server.requests[-1].body))
    assert '"type": "image"' in body and "[image:" not in body  # an image block, no placeholder
    # The conversation keeps the image: a resumed session sends it again.
    async with await agent.create_session(sandbox=LocalSandbox(workspace), resume_from=state) as again:
        await agent.generate(session=again, prompt="and now?")
    assert server.model_requests[-1].tool_results[-1].images == (ImageView("image/png", PNG_1X1),)


async def test_openai_chat_gets_a_placeholder_and_the_part_a_warning(
        scripted_model_server, workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = scripted_model_server(script())
    agent = agent_for(server, "openai:fake-model", tools=[screenshot])
    with caplog.at_level(logging.WARNING):
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="look")
    assert result.finish_reason == "stop", result.parts
    seen = server.model_requests[-1].tool_results[-1]
    assert seen.text == f"the screen\n[image: image/png, {len(PNG_1X1) * 3 // 4} bytes]"
    assert seen.images == ()
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert part.warnings is not None and len(part.warnings) == 1 and "image" in part.warnings[0]
    assert part.to_json()["warnings"] == list(part.warnings)
    assert any("cannot pass a tool result's image item" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("model", ["anthropic:fake-model", "openai:fake-model"])
async def test_an_mcp_image_result_reaches_the_model(scripted_model_server, workspace: Path, model: str) -> None:
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__picture", {}, id="c2")]),
                                             "seen"))
    agent = agent_for(server, model, harness_options={"mcp_servers": {"ctx": stdio_server_config()}})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="picture")
    assert result.finish_reason == "stop", result.parts
    seen = server.model_requests[-1].tool_results[-1]
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert "a 1x1 picture" in seen.text
    if model.startswith("anthropic"):
        assert seen.images == (ImageView("image/png", PNG_1X1),) and part.warnings is None
    else:
        assert seen.images == () and "[image: image/png" in seen.text
        assert part.warnings is not None and "image" in part.warnings[0]


async def test_openai_chat_with_image_input_attaches_the_image_in_a_user_message(
        scripted_model_server, workspace: Path) -> None:
    from harness_builtin.models.openai_chat import OpenAIChatClient

    server = scripted_model_server(script())
    client = OpenAIChatClient("fake-model", base_url=server.openai_base_url, api_key="k", max_retries=0,
                              image_input=True)
    agent = HarnessAgent(harness="builtin", harness_options={"model": client}, include_plugin_tools=False,
                         tools=[screenshot])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="look")
    assert result.finish_reason == "stop", result.parts
    last = server.model_requests[-1]
    assert last.tool_results[-1].text.startswith("the screen\n[image: image/png")
    after = last.messages[-1]
    assert after.role == "user" and after.images == (ImageView("image/png", PNG_1X1),)
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert part.warnings is None
