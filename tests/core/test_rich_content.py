"""Rich tool results in the core (issue 23 item 4): content items read from a tool's
``{"content": [...]}``, the text a text-only runtime gets (a placeholder per image, never a
silent drop), the warning on the ``tool-result`` part, and the scripted model servers
recording the images each wire carries."""

from __future__ import annotations

import logging
from typing import Any

import anthropic
import anyio
import httpx
import pytest

from harness_core import ToolOutput, ToolResultPart, define_harness_tool, normalize_output
from harness_core.testing import CallHost, EchoResults, ImageView, ScriptedAdapter
from harness_core.testing.pytest_plugin import ScriptedServerFactory
from harness_core.tools.content import TEXT_ONLY, ContentItem, content_items, render_content

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
RICH = {"content": [{"type": "text", "text": "the screen"}, {"type": "image", "data": PNG, "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "file:///tmp/x.log", "name": "x"}]}


def test_content_blocks_become_items_and_readable_text() -> None:
    output = normalize_output(RICH)
    assert output.value == RICH["content"]
    size = len(PNG) * 3 // 4
    assert output.content == f"the screen\n[image: image/png, {size} bytes]\n[resource_link: file:///tmp/x.log]"
    items = content_items(output)
    assert [i.kind for i in items] == ["text", "image", "other"]
    assert items[1] == ContentItem("image", data=PNG, media_type="image/png")
    # The AI SDK's spelling of an image is read the same; a list of other things is JSON.
    aisdk = normalize_output({"content": [{"type": "image-data", "data": PNG, "mediaType": "image/png"}]})
    assert content_items(aisdk)[0].kind == "image"
    assert normalize_output({"content": [1, 2]}).content == "[1, 2]"
    assert content_items(normalize_output("plain")) == ()


def items_of(output: ToolOutput) -> tuple[ContentItem, ...]:
    return content_items(output)


def test_render_content_keeps_what_the_runtime_takes_and_warns_for_the_rest(caplog: pytest.LogCaptureFixture) -> None:
    output = normalize_output(RICH)
    with caplog.at_level(logging.WARNING, logger="harness_core.tool_content"):
        text_only = render_content(output, TEXT_ONLY, "Runtime X")
    assert [i.kind for i in text_only.items] == ["text", "text", "text"]
    assert text_only.text == output.content
    assert len(text_only.warnings) == 2 and "Runtime X cannot pass a tool result's image item" in text_only.warnings[0]
    assert len([r for r in caplog.records if "Runtime X" in r.getMessage()]) == 2
    with_images = render_content(output, frozenset({"text", "image"}), "Runtime Y", log=False)
    assert [i.kind for i in with_images.items] == ["text", "image", "text"] and len(with_images.warnings) == 1
    everything = render_content(output, frozenset({"text", "image", "other"}), "Z", log=False)
    assert everything.warnings == () and everything.items[2].raw["uri"] == "file:///tmp/x.log"
    assert render_content(ToolOutput("just text"), TEXT_ONLY, "X").items[0].text == "just text"
    # The same through the ToolOutput methods adapters use.
    assert output.items == items_of(output) and output.render(TEXT_ONLY, "X", log=False).text == output.content


def test_a_text_only_runtime_gets_placeholders_and_the_part_warns() -> None:
    shot = define_harness_tool(name="shot", description="Screenshot.", input={"type": "object", "properties": {}},
                               execute=lambda input, ctx: RICH)
    runtime = ScriptedAdapter([[[CallHost("shot", {})], [EchoResults("Saw:")]]])
    agent = runtime.agent(tools=[shot])

    async def main() -> Any:
        async with await agent.create_session() as session:
            return await agent.generate(session=session, prompt="look")

    result = anyio.run(main)
    part = next(p for p in result.parts if isinstance(p, ToolResultPart))
    assert part.output == RICH["content"]
    assert part.warnings is not None and len(part.warnings) == 2
    assert "harness 'scripted' cannot pass a tool result's image item" in part.warnings[0]
    sent = runtime.tool_results[part.tool_call_id][0]
    assert "[image: image/png" in sent.content and "the screen" in sent.content


def test_the_scripted_servers_record_tool_result_images(scripted_model_server: ScriptedServerFactory) -> None:
    server = scripted_model_server(["ok", "ok", "ok"])
    call = [{"role": "user", "content": "look"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]}]
    anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0).messages.create(
        model="m", max_tokens=10, messages=[*call, {"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "text", "text": "the screen"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}]}])
    url = f"data:image/png;base64,{PNG}"
    httpx.post(f"{server.base_url}/v1/responses", json={"model": "m", "input": [
        {"type": "function_call", "call_id": "t2", "name": "shot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "t2", "output": [
            {"type": "input_text", "text": "the screen"}, {"type": "input_image", "image_url": url}]}]}, timeout=30)
    httpx.post(f"{server.base_url}/v1/chat/completions", json={"model": "m", "messages": [
        {"role": "assistant", "tool_calls": [{"id": "t3", "type": "function",
                                              "function": {"name": "shot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "t3", "content": [{"type": "text", "text": "the screen"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]}, timeout=30)
    first, second, third = server.model_requests
    assert first.tool_results[0].images == (ImageView("image/png", PNG),)
    assert first.tool_results[0].text == "the screen"
    assert second.tool_results[0].images == (ImageView("image/png", PNG),)
    assert third.tool_results[0].images == () and third.tool_results[0].text == "the screen"
    assert third.messages[-1].role == "user" and third.messages[-1].images == (ImageView("image/png", PNG),)
