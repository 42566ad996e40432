"""Skills on the real Claude Code CLI (scripted model): installed in the isolated config dir's
skills folder, listed to the model, loaded through Claude Code's Skill tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, HarnessConfigurationError, LocalSandbox, Skill, SkillFile
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]

SKILL = Skill("release-notes", "Use when asked to write release notes.",
              "Write release notes as three bullet points. Secret word: PAPAYA.",
              files=[SkillFile("templates/notes.md", "- item\n")])


def _agent(settings: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(**settings), include_plugin_tools=False, **kwargs)


async def test_skill_is_installed_listed_and_loaded(scripted_model_server: Any, adapter_settings: Any,
                                                    workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("Skill", {"skill": "release-notes"})]),
        "Done.",
    ])
    settings = adapter_settings(server)  # setting_sources=[]: the adapter adds "user" for the skills
    agent = _agent(settings, skills=[SKILL])
    assert agent.capabilities.supports("skills")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Write the release notes")
    folder = Path(settings["config_dir"]) / "skills" / "release-notes"
    assert (folder / "SKILL.md").read_text().startswith("---\nname: release-notes\n")
    assert (folder / "templates" / "notes.md").read_text() == "- item\n"
    assert not (workspace / ".claude").exists()  # nothing in the work directory
    first, second = server.model_requests[:2]
    assert "Use when asked to write release notes." in json.dumps(first.body)
    assert "PAPAYA" not in json.dumps(first.body)
    assert "PAPAYA" in json.dumps(second.body)  # the Skill tool loaded it
    assert result.text == "Done."


async def test_skills_need_an_isolated_config_dir(workspace: Path) -> None:
    agent = HarnessAgent(harness=claude_code(base_url="http://127.0.0.1:9", api_key="k"), skills=[SKILL],
                         include_plugin_tools=False)
    with pytest.raises(HarnessConfigurationError, match="isolated Claude Code config dir"):
        await agent.create_session(sandbox=LocalSandbox(workspace))  # nothing is written to ~/.claude
