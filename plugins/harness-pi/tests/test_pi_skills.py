"""Skills on real pi (scripted model): installed in the session's private pi home."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness_core import Skill, SkillFile
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("pi")]

SKILL = Skill("release-notes", "Use when asked to write release notes.",
              "Write release notes as three bullet points. Secret word: PAPAYA.",
              files=[SkillFile("templates/notes.md", "- item\n")])


async def test_skill_is_listed_and_read_from_the_private_home(pi_agent: PiAgentFactory, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec(
            "bash", {"command": "cat $PI_CODING_AGENT_DIR/skills/release-notes/SKILL.md "
                                "$PI_CODING_AGENT_DIR/skills/release-notes/templates/notes.md"}, id="b1")]),
        "Done.",
    )
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, skills=[SKILL])
        assert agent.capabilities.supports("skills")
        async with await agent.create_session() as session:
            result = await agent.generate(session=session, prompt="Write the release notes")
        calls = [r for r in server.model_requests if not r.is_side_request]
    check_stream_shape(result.parts)
    first = json.dumps(calls[0].body)
    listed = re.search(r"/[^\"<>\s]*/\.pi/agent/skills/release-notes/SKILL\.md", first)
    assert listed is not None and "Use when asked to write release notes." in first  # in pi's system prompt
    assert not listed.group(0).startswith(str(workspace)) and "PAPAYA" not in first
    output = calls[1].last_tool_result or ""
    assert "PAPAYA" in output and "- item" in output and "name: release-notes" in output
    assert not (workspace / ".pi").exists()
    assert result.text == "Done."
