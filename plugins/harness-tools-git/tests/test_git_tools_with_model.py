"""The git tools in a model's tool loop, against a scripted model server on 127.0.0.1.

The model is scripted (``harness_core.testing``); everything else is real: the OpenAI SDK
sends the tools' JSON Schemas over HTTP, the scripted model calls ``git_status`` and
``git_log`` with JSON-text arguments, the tools run git in a LocalSandbox and their output
goes back to the model in the next request.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest
from harness_tools_git import GIT_TOOLS
from openai.types.chat import ChatCompletionMessageFunctionToolCall

from harness_core import ExecutionContext, HarnessTool, ToolCall, ToolContext, run_tool
from harness_core.testing import ModelTurn, ToolCallSpec
from harness_core.testing.pytest_plugin import ScriptedServerFactory

pytestmark = pytest.mark.anyio


def as_openai_function(tool: HarnessTool) -> Any:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.json_schema},
    }


async def test_a_scripted_model_calls_the_git_tools(
    scripted_model_server: ScriptedServerFactory, sandbox: Any
) -> None:
    server = scripted_model_server(
        [
            ModelTurn(
                "Let me look at the repository.",
                tool_calls=[ToolCallSpec("git_status"), ToolCallSpec("git_log", {"max_count": 1})],
            ),
            ModelTurn("The tree is clean; the last commit describes the project."),
        ]
    )
    tools = {tool.name: tool for tool in GIT_TOOLS}
    async with openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=0) as client:
        messages: list[Any] = [{"role": "user", "content": "What is the state of the repository?"}]
        offered = [as_openai_function(tool) for tool in GIT_TOOLS]

        first = await client.chat.completions.create(model="scripted", messages=messages, tools=offered)
        reply = first.choices[0].message
        calls = [call for call in reply.tool_calls or () if isinstance(call, ChatCompletionMessageFunctionToolCall)]
        assert [call.function.name for call in calls] == ["git_status", "git_log"]
        messages.append(reply.model_dump(exclude_none=True))
        for tool_call in calls:
            tool = tools[tool_call.function.name]
            validated = tool.validate(tool_call.function.arguments)  # JSON text, decoded once
            context = ExecutionContext(
                tool=tool, tool_context=ToolContext(tool_call_id=tool_call.id, tool_name=tool.name, sandbox=sandbox)
            )
            output = await run_tool(ToolCall(tool_call_id=tool_call.id, tool_name=tool.name, input=validated), context)
            assert not output.is_error, output.content
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": output.content})

        second = await client.chat.completions.create(model="scripted", messages=messages, tools=offered)
        assert second.choices[0].message.content == "The tree is clean; the last commit describes the project."
        assert server.offered_tools(0) == ["git_status", "git_diff", "git_log"]
        last = server.last_tool_result()
        assert last is not None and "Describe the project" in last and last.count("commit ") == 1
        sent = server.requests[0].body
        assert sent["tools"][2]["function"]["parameters"]["properties"]["max_count"]["maximum"] == 100
