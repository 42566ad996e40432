"""Skills on the real Codex app-server (scripted Responses model): CODEX_HOME/skills."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_core import HarnessAgent, LocalSandbox, Skill, SkillFile
from harness_core.testing import Script, ScriptedModelServer

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]

SKILL = Skill("release-notes", "Use when asked to write release notes.",
              "Write release notes as three bullet points. Secret word: PAPAYA.",
              files=[SkillFile("templates/notes.md", "- item\n")])


async def test_skill_is_installed_in_the_codex_home_and_listed(make_agent: Callable[..., HarnessAgent],
                                                               tmp_path: Path) -> None:
    with ScriptedModelServer(Script.of("Done.")) as server:
        agent = make_agent(server, skills=[SKILL])
        assert agent.capabilities.supports("skills")
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            result = await agent.generate(session=session, prompt="Write the release notes")
        calls = [r for r in server.requests if r.is_model_call]
    body = json.dumps(calls[0].body)
    print(body[:6000])
    assert "Use when asked to write release notes." in body and "release-notes" in body
    assert "PAPAYA" not in body
    assert not (tmp_path / ".codex").exists()
    assert result.text == "Done."
