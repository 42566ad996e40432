"""Skills on ACP agents: codex-acp (CODEX_HOME/skills) and pi-acp (pi's skills folder), both in
the isolated home the adapter writes (real agents, scripted model); a plain command refuses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_acp import acp

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    Skill,
    SkillFile,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio

SKILL = Skill("release-notes", "Use when asked to write release notes.",
              "Write release notes as three bullet points. Secret word: PAPAYA.",
              files=[SkillFile("templates/notes.md", "- item\n")])


def test_a_plain_command_agent_refuses_skills_with_the_reason() -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError, match="does not know where a plain command agent reads"):
        HarnessAgent(harness=acp(command="my-agent --acp"), include_plugin_tools=False, skills=[SKILL])


def test_a_profile_on_your_own_configuration_refuses_skills() -> None:
    with pytest.raises(HarnessCapabilityUnsupportedError, match="installed only into the isolated home"):
        HarnessAgent(harness=acp(agent="pi-acp"), include_plugin_tools=False, skills=[SKILL])
    assert HarnessAgent(harness=acp(agent="codex-acp", base_url="http://127.0.0.1:9/v1"),
                        include_plugin_tools=False, skills=[SKILL]).capabilities.supports("skills")


@pytest.mark.requires_runtime("codex-acp", "acp")
async def test_codex_acp_lists_the_skill_in_the_model_request(codex_acp: Any, workspace: Path,
                                                              tmp_path: Path) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("exec_command", {
            "cmd": "cat \"$CODEX_HOME/skills/release-notes/SKILL.md\" "
                   "\"$CODEX_HOME/skills/release-notes/templates/notes.md\""})]),
        "Done.",
    ]
    with ScriptedModelServer(script, formats=["responses"]) as server, anyio.fail_after(180):
        agent = HarnessAgent(harness=codex_acp(server), include_plugin_tools=False, skills=[SKILL])
        assert agent.capabilities.supports("skills")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Write the release notes")
        calls = [r for r in server.model_requests if not r.is_side_request]
    check_stream_shape(result.parts)
    first = json.dumps(calls[0].body)
    assert "Use when asked to write release notes." in first and "release-notes" in first
    assert "PAPAYA" not in first  # only the description is listed; the model reads the file
    output = calls[1].last_tool_result or ""
    assert "PAPAYA" in output and "- item" in output and "name: release-notes" in output
    assert (tmp_path / "home" / ".codex" / "skills" / "release-notes" / "SKILL.md").is_file()  # the isolated home
    assert not (workspace / ".codex").exists()
    assert result.text == "Done."


@pytest.mark.requires_runtime("pi-acp", "pi", "acp")
async def test_pi_acp_lists_the_skill_and_the_model_reads_it(pi_acp: Any, workspace: Path) -> None:
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("bash", {
            "command": "cat $PI_CODING_AGENT_DIR/skills/release-notes/SKILL.md "
                       "$PI_CODING_AGENT_DIR/skills/release-notes/templates/notes.md"})]),
        "Done.",
    ]
    with ScriptedModelServer(script) as server, anyio.fail_after(180):
        agent = HarnessAgent(harness=pi_acp(server), include_plugin_tools=False, skills=[SKILL])
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Write the release notes")
        calls = [r for r in server.model_requests if not r.is_side_request]
    check_stream_shape(result.parts)
    first = json.dumps(calls[0].body)
    listed = re.search(r"/[^\"<>\s]*/\.pi/agent/skills/release-notes/SKILL\.md", first)
    assert listed is not None and "Use when asked to write release notes." in first  # pi's system prompt
    assert not listed.group(0).startswith(str(workspace)) and "PAPAYA" not in first
    output = calls[1].last_tool_result or ""
    assert "PAPAYA" in output and "- item" in output
    assert not (workspace / ".pi").exists()
    assert result.text == "Done."
