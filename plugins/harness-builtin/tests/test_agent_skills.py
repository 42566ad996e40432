"""Skills on the built-in harness: the read-only ``skill`` tool, over a scripted model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    PermissionMode,
    Skill,
    SkillFile,
    ToolResultPart,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio

SKILL = Skill("release-notes", "Use when asked to write release notes.",
              "Write release notes as three bullet points. Secret word: PAPAYA.",
              files=[SkillFile("templates/notes.md", "- item\n")])


def agent_for(server: Any, **options: Any) -> HarnessAgent:
    harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "k", "max_retries": 0}
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


async def test_skill_tool_lists_and_loads_skills(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("skill", {"name": "release-notes"})]),
        ModelTurn(tool_calls=[ToolCallSpec("skill", {"name": "release-notes", "file": "templates/notes.md"}),
                              ToolCallSpec("skill", {"name": "nope"})]),
        "Done.",
    ))
    # allow-reads: the read-only skill tool runs without an approval
    agent = agent_for(server, skills=[SKILL], permission_mode=PermissionMode.ALLOW_READS)
    assert agent.capabilities.supports("skills")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Write the release notes")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Done."
    first = server.model_requests[0]
    assert "skill" in first.tool_names
    assert "- release-notes: Use when asked to write release notes." in json.dumps(first.body)
    assert "PAPAYA" not in json.dumps(first.body)
    outputs = [str(p.output) for p in result.parts if isinstance(p, ToolResultPart)]
    assert "PAPAYA" in outputs[0] and "templates/notes.md" in outputs[0] and "name: release-notes" in outputs[0]
    assert "- item" in outputs[1]
    assert "no skill named 'nope'" in str(server.model_requests[2].tool_results[-1].text)
    assert [p.name for p in workspace.iterdir()] == []  # noqa: ASYNC240 - nothing written


async def test_no_skills_no_skill_tool(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of("ok"))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        await agent.generate(session=session, prompt="hi")
    assert "skill" not in server.model_requests[0].tool_names


async def test_a_repair_turn_without_skills_does_not_name_the_skill_tool(scripted_model_server: Any,
                                                                          workspace: Path) -> None:
    server = scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("read", {})]), "ok"))
    agent = agent_for(server)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        await agent.generate(session=session, prompt="hi")
    note = json.dumps(server.model_requests[1].body["messages"][-1])
    assert "only read-only tools are available (glob, grep, ls, read)" in note
    assert "skill" not in server.model_requests[1].tool_names


@pytest.mark.parametrize("skills", [[], [SKILL]])
def test_a_host_tool_named_skill_is_refused_at_construction(skills: list[Skill]) -> None:
    # the built-in 'skill' tool's name is reserved, with or without skills= (no silent shadowing)
    from harness_core import ToolNameConflictError, define_harness_tool

    mine = define_harness_tool(name="skill", description="Mine.", input={"type": "object"}, execute=lambda i, c: "x")
    options = {"model": "anthropic:fake-model", "base_url": "http://127.0.0.1:9", "api_key": "k"}
    with pytest.raises(ToolNameConflictError, match=r"host tool 'skill' \(from the tools= argument\) has the name of "
                       r"a built-in tool of harness 'builtin' \(Load a skill.*rename the host tool"):
        HarnessAgent(harness="builtin", harness_options=options, tools=[mine], skills=skills,
                     inactive_tools=["skill"], include_plugin_tools=False)
    with pytest.raises(Exception, match="extra tool 'skill' has the name of a built-in tool"):
        HarnessAgent(harness="builtin", harness_options={**options, "extra_tools": {"skill": mine}},
                     include_plugin_tools=False)


async def test_a_host_tool_named_final_answer_is_refused_with_output(scripted_model_server: Any,
                                                                     workspace: Path) -> None:
    from harness_core import define_harness_tool

    server = scripted_model_server(Script.of("plain", "never"))
    mine = define_harness_tool(name="final_answer", description="Mine.", input={"type": "object"},
                               execute=lambda i, c: "x")
    agent = agent_for(server, tools=[mine])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        plain = await agent.generate(session=session, prompt="hi")  # no output=: no clash
        assert plain.text == "plain"
        result = await agent.generate(session=session, prompt="hi", output={"type": "object"})
    assert result.finish_reason == "error" and "structured-output tool" in (result.error or "")
    assert len(server.model_requests) == 1
